/**
 * `files_list`: files and folders beneath a folder, depth-first in name order (default
 * depth 4 and 500 entries), each with its kind and, for files, size. Symlinks are listed,
 * never followed. The result stops early (`truncated: true`) where its json block would
 * pass 512 KiB of compact JSON.
 *
 * @module
 */

import fs from "node:fs";
import { jsonResult, LIMITS, type ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import { ownership } from "../builtins/common.ts";
import type { BuiltinEnv } from "../builtins/context.ts";
import { cutWarning, fitPrefix, ItemBytes } from "./json_budget.ts";
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
 * Run `files_list`. `maxResultBytes` (default 512 KiB) bounds the json block.
 *
 * @example
 * ```ts
 * import { runFilesList } from "./list.ts";
 * // const r = await runFilesList({ path: "src", depth: 2 }, env);
 * ```
 */
export async function runFilesList(
  args: FilesListArgs,
  env: BuiltinEnv,
  maxResultBytes: number = LIMITS.maxJsonBytes,
): Promise<ToolResult> {
  const r = resolveLogicalPath(env, args.path, { allowDotRoot: true });
  const depth = args.depth ?? NATIVE_LIMITS.listDefaultDepth;
  const max = args.maxEntries ?? NATIVE_LIMITS.listDefaultEntries;
  const entries: ListedEntry[] = [];
  const bytes = new ItemBytes(maxResultBytes);
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
    if (!bytes.add(entry)) return "stop"; // cut below by fitPrefix
  });
  const warnings = full
    ? [`only the first ${max} entries are listed`, ...out.warnings]
    : out.warnings;
  const shape = (kept: ListedEntry[], cut: boolean) => ({
    ...ownership(r),
    depth,
    entries: kept,
    truncated: cut || out.truncated,
    warnings: cut ? [cutWarning(maxResultBytes), ...warnings] : warnings,
  });
  const fit = fitPrefix(entries, shape, maxResultBytes);
  return jsonResult(shape(fit.items, fit.cut));
}
