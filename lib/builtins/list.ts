/**
 * The `list` built-in: the entries of a folder (or of a file Artifact's virtual root),
 * sorted by name, with kind file, directory, symlink or other. Symlinks are reported,
 * never followed. The result pages early (`truncated`) at the 512 KiB JSON cap; a folder
 * with more than 10,000 entries is an error.
 *
 * @module
 */

import { PathError } from "../errors/errors.ts";
import { jsonResult, LIMITS, type ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import type { DirEntry } from "../paths/sandbox.ts";
import type { BuiltinEnv } from "./context.ts";
import { jsonBytes, ownership, withSandbox } from "./common.ts";
import { showPath } from "../paths/show_path.ts";

/** Entries one listed folder may hold. */
export const MAX_LIST_ENTRIES = 10_000;

/** Arguments of `list`. */
export interface ListArgs {
  /** Logical folder path; omitted or `.` = the root. */
  path?: string;
}

/** Keep entries while the JSON result stays within `max` bytes. */
function pageEntries(
  base: object,
  entries: DirEntry[],
  max: number,
): { entries: DirEntry[]; truncated: boolean } {
  let budget = max - jsonBytes({ ...base, entries: [], truncated: false });
  const out: DirEntry[] = [];
  for (const e of entries) {
    const cost = jsonBytes(e) + (out.length > 0 ? 1 : 0);
    if (cost > budget) return { entries: out, truncated: true };
    budget -= cost;
    out.push(e);
  }
  return { entries: out, truncated: false };
}

/**
 * Run `list`.
 *
 * @example
 * ```ts
 * import { runList } from "./list.ts";
 * // const result = await runList({ path: "src" }, env);
 * ```
 */
export async function runList(
  args: ListArgs,
  env: BuiltinEnv,
  maxResultBytes: number = LIMITS.maxJsonBytes,
): Promise<ToolResult> {
  const r = resolveLogicalPath(env, args.path, { allowDotRoot: true });
  const entries = await withSandbox(r, env, (box) => {
    if (r.fileOnly !== undefined) {
      if (r.components.length > 0) {
        throw new PathError(`${showPath(r.path)} is a file; list takes a folder.`);
      }
      const kind = box.kindOf([r.fileOnly], r.fileOnly);
      if (kind === null) throw new PathError(`${showPath(r.fileOnly)} does not exist.`);
      return [{ name: r.fileOnly, kind }];
    }
    const dir = box.openDir(r.components, r.path);
    try {
      return box.readDir(dir, r.path, MAX_LIST_ENTRIES);
    } finally {
      box.closeDir(dir);
    }
  });
  const base = ownership(r);
  const page = pageEntries(base, entries, maxResultBytes);
  return jsonResult({ ...base, entries: page.entries, truncated: page.truncated });
}
