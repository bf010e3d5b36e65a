/**
 * `files_list`: files and folders beneath a folder, depth-first in name order (default
 * depth 4 and 500 entries), each with its kind and, for files, size. Symlinks are listed,
 * never followed.
 *
 * @module
 */

import fs from "node:fs";
import { jsonResult, type ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import { ownership } from "../builtins/common.ts";
import type { BuiltinEnv } from "../builtins/context.ts";
import { NATIVE_LIMITS } from "./limits.ts";
import { traverse } from "./traverse.ts";

/** Arguments of `files_list`. */
export interface FilesListArgs {
  /** Logical folder (default root). */
  path?: string;
  /** Levels (default 4). */
  depth?: number;
  /** Entries at most (default 500). */
  maxEntries?: number;
}

/** One listed entry. */
export interface ListedEntry {
  /** Logical path. */
  path: string;
  /** Kind. */
  kind: string;
  /** Bytes, for files. */
  size?: number;
}

/**
 * Run `files_list`.
 *
 * @example
 * ```ts
 * import { runFilesList } from "./list.ts";
 * // const r = await runFilesList({ path: "src", depth: 2 }, env);
 * ```
 */
export async function runFilesList(args: FilesListArgs, env: BuiltinEnv): Promise<ToolResult> {
  const r = resolveLogicalPath(env, args.path, { allowDotRoot: true });
  const depth = args.depth ?? NATIVE_LIMITS.listDefaultDepth;
  const max = args.maxEntries ?? NATIVE_LIMITS.listDefaultEntries;
  const entries: ListedEntry[] = [];
  let full = false;
  const out = await traverse(env, r, { depth }, (e) => {
    if (entries.length === max) {
      full = true;
      return "stop";
    }
    const entry: ListedEntry = { path: e.path, kind: e.kind };
    if (e.kind === "file") {
      const st = fs.lstatSync(`${e.dir.base}/${e.name}`, { throwIfNoEntry: false });
      if (st) entry.size = st.size;
    }
    entries.push(entry);
  });
  const warnings = full
    ? [`only the first ${max} entries are listed`, ...out.warnings]
    : out.warnings;
  return jsonResult({ ...ownership(r), depth, entries, truncated: out.truncated, warnings });
}
