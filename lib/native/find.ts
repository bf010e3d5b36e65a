/**
 * `files_find`: files and folders whose path relative to the start folder matches a glob
 * (default depth 8, 500 results, a bounded scan). Names only; contents are never opened.
 *
 * @module
 */

import { jsonResult, type ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import { compileGlob } from "../glob/pattern.ts";
import { ownership } from "../builtins/common.ts";
import type { BuiltinEnv } from "../builtins/context.ts";
import { NATIVE_LIMITS } from "./limits.ts";
import { traverse } from "./traverse.ts";

/** Arguments of `files_find`. */
export interface FilesFindArgs {
  /** Glob over relative paths. */
  pattern: string;
  /** Logical folder (default root). */
  path?: string;
  /** Levels (default 8). */
  depth?: number;
  /** Results at most (default 500). */
  maxResults?: number;
}

/**
 * Run `files_find`.
 *
 * @example
 * ```ts
 * import { runFilesFind } from "./find.ts";
 * // const r = await runFilesFind({ pattern: "**\/*.test.ts" }, env);
 * ```
 */
export async function runFilesFind(
  args: FilesFindArgs,
  env: BuiltinEnv,
  scanEntries: number = NATIVE_LIMITS.scanEntries,
): Promise<ToolResult> {
  const glob = compileGlob(args.pattern);
  const r = resolveLogicalPath(env, args.path, { allowDotRoot: true });
  const depth = args.depth ?? NATIVE_LIMITS.findDefaultDepth;
  const max = args.maxResults ?? NATIVE_LIMITS.findDefaultResults;
  const matches: { path: string; kind: string }[] = [];
  let full = false;
  const out = await traverse(env, r, { depth, scanEntries }, (e) => {
    if (!glob.matchesPath(e.rel)) return;
    if (matches.length === max) {
      full = true;
      return "stop";
    }
    matches.push({ path: e.path, kind: e.kind });
  });
  const warnings = full
    ? [`only the first ${max} matches are returned`, ...out.warnings]
    : out.warnings;
  return jsonResult({ ...ownership(r), depth, matches, truncated: out.truncated, warnings });
}
