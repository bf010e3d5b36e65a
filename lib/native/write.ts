/**
 * `files_write` (complete content; creates missing parent folders unless
 * `createParents: false`) and `files_edit` (the exact `oldText` must occur exactly once;
 * zero or several occurrences is an error naming the count). Both write through
 * write_fs.ts: never through a symlink, atomically by rename in the same verified folder.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { PathError, ToolhostError } from "../errors/errors.ts";
import { jsonResult, type ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import { ownership, withSandbox } from "../builtins/common.ts";
import type { BuiltinEnv } from "../builtins/context.ts";
import { NATIVE_LIMITS } from "./limits.ts";
import {
  closeTarget,
  openWriteTarget,
  readCurrent,
  removeCreated,
  replaceContent,
} from "./write_fs.ts";
import { showPath } from "../paths/show_path.ts";

/** Mode of files the native tools create. */
export const NEW_FILE_MODE = 0o644;

/** Arguments of `files_write`. */
export interface FilesWriteArgs {
  /** Logical file path. */
  path: string;
  /** Complete content. */
  content: string;
  /** Create missing parents (default true). */
  createParents?: boolean;
}

/**
 * Run `files_write`: `{…ownership, bytesWritten, created}`.
 *
 * @example
 * ```ts
 * import { runFilesWrite } from "./write.ts";
 * // await runFilesWrite({ path: "notes/todo.md", content: "- ship\n" }, env);
 * ```
 */
export async function runFilesWrite(args: FilesWriteArgs, env: BuiltinEnv): Promise<ToolResult> {
  const r = resolveLogicalPath(env, args.path);
  const bytes = Buffer.from(args.content, "utf8");
  if (bytes.length > NATIVE_LIMITS.writeMaxFileBytes) {
    throw new ToolhostError(
      "TOOL_ERROR",
      `The content is larger than ${NATIVE_LIMITS.writeMaxFileBytes} bytes.`,
    );
  }
  return await withSandbox(r, env, (box) => {
    const t = openWriteTarget(box, r, args.createParents ?? true, env.workspace.root);
    try {
      const cur = readCurrent(t);
      replaceContent(t, bytes, cur?.mode ?? NEW_FILE_MODE, cur?.id ?? null);
      return jsonResult({ ...ownership(r), bytesWritten: bytes.length, created: cur === null });
    } catch (e) {
      removeCreated(t);
      throw e;
    } finally {
      closeTarget(t);
    }
  });
}

/** Arguments of `files_edit`. */
export interface FilesEditArgs {
  /** Logical file path. */
  path: string;
  /** Exact text that must occur once. */
  oldText: string;
  /** Replacement. */
  newText: string;
}

/**
 * How often `needle` occurs in `hay` (non-overlapping), counting at most `limit`.
 *
 * @example
 * ```ts
 * import { countOccurrences } from "./write.ts";
 * countOccurrences("a-a-a", "a", 10); // 3
 * ```
 */
export function countOccurrences(
  hay: string,
  needle: string,
  limit: number,
  held: ReadonlyArray<readonly [number, number]> = [],
): number {
  let n = 0;
  for (let at = findFree(hay, needle, 0, held); at >= 0 && n < limit;) {
    n++;
    at = findFree(hay, needle, at + needle.length, held);
  }
  return n;
}

/**
 * The first occurrence of `needle` in `hay` from `from` that overlaps none of `held` (the
 * ranges of protected values), or -1: an edit whose old text would take in part of a
 * value finds nothing, exactly like a wrong guess at the value.
 *
 * @example
 * ```ts
 * import { findFree } from "./write.ts";
 * findFree("k=SECRET k=x", "k=S", 0, [[2, 8]]); // -1: it would take in part of the value
 * findFree("k=SECRET k=x", "k=", 0, [[2, 8]]); // 0
 * ```
 */
export function findFree(
  hay: string,
  needle: string,
  from: number,
  held: ReadonlyArray<readonly [number, number]>,
): number {
  for (let at = hay.indexOf(needle, from); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if (!held.some(([a, z]) => a < Math.max(end, at + 1) && z > at)) return at;
  }
  return -1;
}

/**
 * Run `files_edit`: `{…ownership, replaced: 1, bytes}`.
 *
 * @example
 * ```ts
 * import { runFilesEdit } from "./write.ts";
 * // await runFilesEdit({ path: "src/a.ts", oldText: "let x = 1", newText: "let x = 2" }, env);
 * ```
 */
export async function runFilesEdit(args: FilesEditArgs, env: BuiltinEnv): Promise<ToolResult> {
  const r = resolveLogicalPath(env, args.path);
  return await withSandbox(r, env, (box) => {
    const t = openWriteTarget(box, r, false, env.workspace.root);
    try {
      const cur = readCurrent(t);
      if (cur === null) throw new PathError(`${showPath(r.path)} does not exist.`);
      const text = new TextDecoder("utf-8", { fatal: false }).decode(cur.bytes);
      if (!Buffer.from(text, "utf8").equals(Buffer.from(cur.bytes))) {
        throw new ToolhostError(
          "TOOL_ERROR",
          `${showPath(r.path)} is not UTF-8 text; files_edit edits text files only.`,
        );
      }
      const held = env.protect?.ranges(text) ?? [];
      const n = countOccurrences(text, args.oldText, 1000, held);
      if (n !== 1) {
        const count = n === 0 ? "0 times" : n >= 1000 ? "1000 or more times" : `${n} times`;
        throw new ToolhostError(
          "TOOL_ERROR",
          `oldText must occur exactly once in ${showPath(r.path)}; it occurs ${count}. ` +
            (n === 0
              ? "Read the file and copy the text exactly."
              : "Include more surrounding text to make it unique."),
        );
      }
      const at = findFree(text, args.oldText, 0, held);
      const next = Buffer.from(
        text.slice(0, at) + args.newText + text.slice(at + args.oldText.length),
        "utf8",
      );
      if (next.length > NATIVE_LIMITS.writeMaxFileBytes) {
        throw new ToolhostError(
          "TOOL_ERROR",
          `The edited file would be larger than ${NATIVE_LIMITS.writeMaxFileBytes} bytes.`,
        );
      }
      replaceContent(t, next, cur.mode, cur.id);
      return jsonResult({ ...ownership(r), replaced: 1, bytes: next.length });
    } finally {
      closeTarget(t);
    }
  });
}
