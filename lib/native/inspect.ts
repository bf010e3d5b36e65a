/**
 * `files_inspect`: what a path is — kind, size, mode, mtime — and for regular files the
 * line count and an encoding guess (utf-8, ascii, utf-16le/be by BOM, or binary). The
 * last component is examined without following it: a symlink is reported as a symlink
 * (its target is never read or shown).
 *
 * @module
 */

import fs from "node:fs";
import { jsonResult, type ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import { ownership, withSandbox } from "../builtins/common.ts";
import { preadFully } from "./text.ts";
import type { BuiltinEnv } from "../builtins/context.ts";
import type { Sandbox } from "../paths/sandbox.ts";
import { NATIVE_LIMITS } from "./limits.ts";

/** The encoding guess of `files_inspect`. */
export type EncodingGuess =
  | "empty"
  | "ascii"
  | "utf-8"
  | "utf-8-bom"
  | "utf-16le"
  | "utf-16be"
  | "binary";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Guess the encoding of a sample (the whole file when `complete`).
 *
 * @example
 * ```ts
 * import { guessEncoding } from "./inspect.ts";
 * guessEncoding(new TextEncoder().encode("héllo"), true); // "utf-8"
 * ```
 */
export function guessEncoding(b: Uint8Array, complete: boolean): EncodingGuess {
  if (b.length === 0) return "empty";
  if (b[0] === 0xff && b[1] === 0xfe) return "utf-16le";
  if (b[0] === 0xfe && b[1] === 0xff) return "utf-16be";
  if (b.includes(0)) return "binary";
  const bom = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
  if (!bom && b.every((x) => x < 0x80)) return "ascii";
  try {
    // A sample may end inside a character: stream-decode leaves it pending.
    new TextDecoder("utf-8", { fatal: true }).decode(b, { stream: !complete });
    if (complete) utf8.decode(b);
    return bom ? "utf-8-bom" : "utf-8";
  } catch {
    return "binary";
  }
}

function lineCount(b: Uint8Array): number {
  let n = 0;
  for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) n++;
  return b.length > 0 && b[b.length - 1] !== 10 ? n + 1 : n;
}

function modeString(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}

function inspectFile(box: Sandbox, comps: string[], path: string) {
  const f = box.openFile(comps, path);
  try {
    const st = fs.fstatSync(f.fd);
    const len = Math.min(st.size, NATIVE_LIMITS.inspectMaxBytes);
    const sample = preadFully((b, o, l, p) => fs.readSync(f.fd, b, o, l, p), 0, len);
    const complete = sample.length >= st.size;
    const encoding = guessEncoding(sample, complete);
    const text = encoding !== "binary" && encoding !== "utf-16le" && encoding !== "utf-16be";
    return {
      kind: "file",
      size: st.size,
      mode: modeString(st.mode),
      mtime: st.mtime.toISOString(),
      encoding,
      lineCount: text && complete ? lineCount(sample) : null,
      ...(complete ? {} : { warnings: [`only the first ${len} bytes were examined`] }),
    };
  } finally {
    fs.closeSync(f.fd);
  }
}

/**
 * Run `files_inspect`.
 *
 * @example
 * ```ts
 * import { runFilesInspect } from "./inspect.ts";
 * // const r = await runFilesInspect({ path: "README.md" }, env);
 * ```
 */
export async function runFilesInspect(
  args: { path: string },
  env: BuiltinEnv,
): Promise<ToolResult> {
  const r = resolveLogicalPath(env, args.path, { allowDotRoot: true });
  if (r.fileOnly !== undefined && r.components.length === 0) {
    return jsonResult({ ...ownership(r), kind: "directory", virtual: true, entries: 1 });
  }
  const data = await withSandbox(r, env, (box) => {
    const kind = box.kindOf(r.components, r.path);
    if (kind === null) return null;
    if (kind === "file") return inspectFile(box, r.components, r.path);
    if (kind === "directory") {
      const d = box.openDir(r.components, r.path);
      try {
        const st = fs.fstatSync(d.fd);
        return { kind, mode: modeString(st.mode), mtime: st.mtime.toISOString() };
      } finally {
        box.closeDir(d);
      }
    }
    return { kind };
  });
  if (data === null) return jsonResult({ ...ownership(r), kind: "missing" });
  return jsonResult({ ...ownership(r), ...data });
}
