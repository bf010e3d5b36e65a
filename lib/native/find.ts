/**
 * `files_find`: files and folders whose path relative to the start folder matches a glob
 * (default depth 8, 500 results, a bounded scan). Names only; contents are never opened.
 * The result stops early (`truncated: true`) where its json block would pass 512 KiB of
 * compact JSON.
 *
 * @module
 */

import { protectGlob } from "../redact/glob.ts";
import { jsonResult, LIMITS, type ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import { compileGlob } from "../glob/pattern.ts";
import { ownership } from "../builtins/common.ts";
import type { BuiltinEnv } from "../builtins/context.ts";
import { cutWarning, fitPrefix, ItemBytes } from "./json_budget.ts";
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

/** One match. */
interface Match {
  path: string;
  kind: string;
}

/**
 * Run `files_find`. `scanEntries` (default 20,000) bounds the scan, `maxResultBytes`
 * (default 512 KiB) the json block.
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
  maxResultBytes: number = LIMITS.maxJsonBytes,
): Promise<ToolResult> {
  const glob = protectGlob(compileGlob(args.pattern), env.protect);
  const r = resolveLogicalPath(env, args.path, { allowDotRoot: true });
  const depth = args.depth ?? NATIVE_LIMITS.findDefaultDepth;
  const max = args.maxResults ?? NATIVE_LIMITS.findDefaultResults;
  const matches: Match[] = [];
  const bytes = new ItemBytes(maxResultBytes);
  let full = false;
  const out = await traverse(env, r, { depth, scanEntries }, (e) => {
    if (!glob.matchesPath(e.rel)) return;
    if (matches.length === max) {
      full = true;
      return "stop";
    }
    const m: Match = { path: e.path, kind: e.kind };
    matches.push(m);
    if (!bytes.add(m)) return "stop"; // cut below by fitPrefix
  });
  const warnings = full
    ? [`only the first ${max} matches are returned`, ...out.warnings]
    : out.warnings;
  const shape = (kept: Match[], cut: boolean) => ({
    ...ownership(r),
    depth,
    matches: kept,
    truncated: cut || out.truncated,
    warnings: cut ? [cutWarning(maxResultBytes), ...warnings] : warnings,
  });
  const fit = fitPrefix(matches, shape, maxResultBytes);
  return jsonResult(shape(fit.items, fit.cut));
}
