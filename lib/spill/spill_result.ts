/**
 * Turning an oversized output into an artifact result: the full text already sits in a
 * file of the registry's artifact directory; it is validated as an
 * `odek.artifact-ref/v1` against that directory (fail-closed, like every ref), added to
 * the conversation's artifact store, and the model gets a bounded preview plus the
 * rendered ref, which `get_artifact_field` pages through.
 *
 * @module
 */

import { utf8Head } from "../text/text_clean.ts";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createHash } from "node:crypto";
import type { ArtifactStore } from "../artifacts/store.ts";
import { SCHEMA_ARTIFACT_REF, SCHEMA_TOOL_RESULT } from "../odek/constants.ts";
import { markerLike, renderEnvelope } from "../odek/render.ts";
import type { ArtifactRef } from "../odek/types.ts";
import { inspectArtifactRef } from "../odek/validate.ts";
import { formatBytes } from "../protocols/run_errors.ts";
import type { ToolResult } from "../results/types.ts";

/** Where oversized output goes: the registry's artifact directory and store. */
export interface SpillTarget {
  /** The registry's artifact directory (it exists, mode 0700). */
  dir: string;
  /** The registry's artifact store (what `get_artifact_field` reads). */
  store: ArtifactStore;
  /** Published tool name (names the artifact). */
  tool: string;
}

/** A written spill file. */
export interface SpillFile {
  /** Absolute path inside the target's directory. */
  path: string;
  /** Size in bytes. */
  bytes: number;
  /** Lowercase hex SHA-256 of the bytes. */
  sha256: string;
}

/**
 * UTF-8 bytes of the preview shown in place of an oversized output.
 *
 * @example
 * ```ts
 * import { SPILL_PREVIEW_BYTES } from "./spill_result.ts";
 * SPILL_PREVIEW_BYTES; // 8192
 * ```
 */
export const SPILL_PREVIEW_BYTES = 8 * 1024;

/** Line breaks as a reader (and the former `m`-flag regex) sees them. */
const LINE_BREAK = /(\r\n|[\n\r\u2028\u2029])/;

/**
 * A fresh, unguessable spill file path and artifact id for `tool`.
 *
 * @example
 * ```ts
 * import { spillName } from "./spill_result.ts";
 * spillName("/state/artifacts/ab", "search_app").id.startsWith("search_app-output-"); // true
 * ```
 */
export function spillName(dir: string, tool: string): { id: string; path: string } {
  const id = `${tool}-output-${randomBytes(6).toString("hex")}`;
  return { id, path: join(dir, `${id}.txt`) };
}

/**
 * Write a whole text to a new spill file (exclusive create, mode 0600).
 *
 * @example
 * ```ts
 * import { writeSpillText } from "./spill_result.ts";
 * // const file = await writeSpillText("/state/artifacts/ab/x.txt", bigText);
 * ```
 */
export async function writeSpillText(path: string, text: string): Promise<SpillFile> {
  const bytes = new TextEncoder().encode(text);
  await writeFile(path, bytes, { flag: "wx", mode: 0o600 });
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return { path, bytes: bytes.byteLength, sha256 };
}

/**
 * Escape lines that would read like rendered `[artifact]` lines, so a tool's own output
 * can never pose as a validated artifact.
 *
 * @example
 * ```ts
 * import { escapeArtifactMarkers } from "./spill_result.ts";
 * escapeArtifactMarkers('[artifact] id="x"'); // '\\[artifact] id="x"'
 * ```
 */
export function escapeArtifactMarkers(text: string): string {
  // Line by line: the former /^(\s*\\*\s*\[\s*artifact)/gim let `\s*` run across line
  // breaks, so "x\n\n[artifact] id=..." put its backslash on the blank line and left the
  // forged line as it was; and it backtracked in cubic time over blank lines (8 KiB of
  // newlines: minutes).
  const parts = text.split(LINE_BREAK);
  for (let i = 0; i < parts.length; i += 2) {
    if (markerLike(parts[i])) parts[i] = `\\${parts[i]}`;
  }
  return parts.join("");
}

/**
 * Validate and register a spill file and build the model's text: a bounded preview, then
 * the rendered artifact ref. The text holds no path.
 *
 * @example
 * ```ts
 * import { spilledText } from "./spill_result.ts";
 * // const text = await spilledText(target, id, file, previewText);
 * ```
 */
export async function spilledText(
  target: SpillTarget,
  id: string,
  file: SpillFile,
  preview: string,
): Promise<string> {
  const ref: ArtifactRef = {
    schema: SCHEMA_ARTIFACT_REF,
    id,
    uri: pathToFileURL(file.path).href,
    media_type: "text/plain",
    size_bytes: file.bytes,
    sha256: file.sha256,
    summary: `full output of ${target.tool}`,
  };
  const found = await inspectArtifactRef(ref, [target.dir]);
  target.store.add(ref, found);
  const head = escapeArtifactMarkers(utf8Head(preview, SPILL_PREVIEW_BYTES));
  const note = `[the output is ${formatBytes(file.bytes)} in all; the full text is the artifact ` +
    `"${id}": page through it with get_artifact_field (field "content", offset, max_chars)]`;
  const rendered = renderEnvelope(
    { schema: SCHEMA_TOOL_RESULT, text: note, artifacts: [ref] },
    { sizes: [found.size] },
  );
  return `${head}\n${rendered}`;
}

/**
 * The result for an oversized text: one text block (preview + rendered ref).
 *
 * @example
 * ```ts
 * import { spilledResult } from "./spill_result.ts";
 * // const result = await spilledResult(target, id, file, preview, false);
 * ```
 */
export async function spilledResult(
  target: SpillTarget,
  id: string,
  file: SpillFile,
  preview: string,
  isError: boolean,
): Promise<ToolResult> {
  return {
    content: [{ type: "text", text: await spilledText(target, id, file, preview) }],
    isError,
  };
}
