/**
 * Editing `toolhost.toml` without rewriting it: a new manifest is created exclusively;
 * declarations are appended as text to an existing one (its comments and formatting stay
 * byte for byte), in its line-ending style. Each edit can be undone.
 *
 * @module
 */

import {
  appendFileSync,
  lstatSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import type { Buffer } from "node:buffer";
import { PathError } from "../errors/errors.ts";
import { existsError } from "./exists_error.ts";
import { errnoOf } from "../paths/errno.ts";

const MANIFEST = "toolhost.toml";

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** A value-free error for a failed manifest write (Node's own message names the path). */
function manifestError(path: string, e: unknown): PathError {
  if ((errnoOf(e) ?? "error") !== "EEXIST") {
    return new PathError(`could not write \`${MANIFEST}\` (${(errnoOf(e) ?? "error")})`);
  }
  if (!isSymlink(path)) return existsError(MANIFEST);
  return new PathError(
    `\`${MANIFEST}\` exists (a symlink, whose target is missing); toolhost init never overwrites or follows it: remove it or move it away`,
  );
}

/** An applied manifest edit. */
export interface ManifestEdit {
  /** Restore the manifest exactly as it was (remove it when the edit created it). */
  undo(): void;
}

/**
 * Create a manifest at `path`; fails rather than replace an existing file or follow a
 * symlink (even a dangling one), with a `PathError` naming only `toolhost.toml`.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { createManifest } from "./manifest_edit.ts";
 * const ws = mkdtempSync(join(tmpdir(), "ws-"));
 * const edit = createManifest(join(ws, "toolhost.toml"), "[artifacts.tools]\npath = \"tools\"\n");
 * edit.undo(); // removes it again
 * ```
 */
export function createManifest(path: string, text: string): ManifestEdit {
  try {
    writeFileSync(path, text, { flag: "wx", mode: 0o644 });
  } catch (e) {
    throw manifestError(path, e);
  }
  return { undo: () => rmSync(path, { force: true }) };
}

/**
 * Append `text` (LF line endings) to the manifest at `path`: after a newline when the
 * file does not end with one, and with CRLF line endings when the file uses them.
 * `undo()` truncates the file back to its original length.
 *
 * @example
 * ```ts
 * import { mkdtempSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { appendToManifest } from "./manifest_edit.ts";
 * const manifest = join(mkdtempSync(join(tmpdir(), "ws-")), "toolhost.toml");
 * writeFileSync(manifest, "[artifacts.tools]\npath = \"tools\"\n");
 * const edit = appendToManifest(manifest, "\n[artifacts.tools.evals.agent]\naudience = \"agent\"\n");
 * edit.undo();
 * ```
 */
export function appendToManifest(path: string, text: string): ManifestEdit {
  let before: Buffer;
  try {
    before = readFileSync(path);
  } catch (e) {
    throw new PathError(`could not read \`${MANIFEST}\` (${(errnoOf(e) ?? "error")})`);
  }
  const crlf = before.includes("\r\n");
  const endsWithNewline = before.length === 0 || before[before.length - 1] === 0x0a;
  let added = endsWithNewline ? text : `\n${text}`;
  if (crlf) added = added.replace(/\r?\n/g, "\r\n");
  try {
    appendFileSync(path, added);
  } catch (e) {
    throw manifestError(path, e);
  }
  return { undo: () => truncateSync(path, before.length) };
}
