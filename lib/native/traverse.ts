/**
 * The bounded traversal shared by `files_list`, `files_find` and `files_search`: depth
 * and scan-budget limits, symlinks reported but never followed, descendant Artifacts the
 * eval does not admit skipped — with the reasons collected as warnings.
 *
 * @module
 */

import { PathError } from "../errors/errors.ts";
import type { DirHandle, EntryKind, Sandbox } from "../paths/sandbox.ts";
import { walkTree } from "../paths/walk.ts";
import { childLogical } from "../paths/logical.ts";
import type { ResolvedPath } from "../paths/resolve.ts";
import { admitter, withSandbox } from "../builtins/common.ts";
import type { BuiltinEnv } from "../builtins/context.ts";
import { NATIVE_LIMITS } from "./limits.ts";
import { showPath } from "../paths/show_path.ts";

/** One visited entry. */
export interface VisitedEntry {
  /** Logical path from the declaring Artifact. */
  path: string;
  /** Path relative to the traversal's start. */
  rel: string;
  /** Entry name. */
  name: string;
  /** Kind (symlinks are never followed). */
  kind: EntryKind;
  /** Open folder holding it (valid during the callback). */
  dir: DirHandle;
}

/** Traversal bounds. */
export interface TraverseOptions {
  /** Folder levels to descend (1 = the start folder's entries only). */
  depth: number;
  /** Entries visited before the scan stops (truncated). Default 20,000. */
  scanEntries?: number;
}

/** Outcome of {@link traverse}. */
export interface TraverseOutcome {
  /** The visitor stopped it, or a bound did. */
  truncated: boolean;
  /** Human-readable notes on what was not covered. */
  warnings: string[];
}

/**
 * Walk beneath a resolved folder. The visitor returns `"stop"` to end the walk (e.g. a
 * result limit) — the outcome is then `truncated`.
 *
 * @example
 * ```ts
 * import { traverse } from "./traverse.ts";
 * // await traverse(env, resolved, { depth: 4 }, (e) => void out.push(e.path));
 * ```
 */
export async function traverse(
  env: BuiltinEnv,
  r: ResolvedPath,
  opts: TraverseOptions,
  visit: (e: VisitedEntry, box: Sandbox) => "stop" | void,
): Promise<TraverseOutcome> {
  if (r.fileOnly !== undefined && r.components.length > 0) {
    throw new PathError(`${showPath(r.path)} is a file; give a folder.`);
  }
  const admit = admitter(env);
  const scan = opts.scanEntries ?? NATIVE_LIMITS.scanEntries;
  let symlinks = 0;
  let skipped = 0;
  let deep = 0;
  let stopped = false;
  const walked = await withSandbox(r, env, (box) => {
    const dir = box.openDir(r.components, r.path);
    try {
      return walkTree(
        box,
        dir,
        r.path,
        (e) => {
          if (r.fileOnly !== undefined && e.name !== r.fileOnly) return "skip";
          const path = childLogical(r.path, e.rel);
          if (admit && !admit(path)) {
            skipped++;
            return "skip";
          }
          if (e.kind === "symlink") symlinks++;
          if (visit({ path, rel: e.rel, name: e.name, kind: e.kind, dir: e.dir }, box) === "stop") {
            stopped = true;
            return "stop";
          }
          if (e.kind === "directory" && e.rel.split("/").length >= opts.depth) {
            deep++;
            return "skip";
          }
        },
        { maxEntries: scan },
        env.signal,
      );
    } finally {
      box.closeDir(dir);
    }
  });
  const warnings: string[] = [];
  if (walked.truncated) warnings.push(`the scan stopped after ${scan} entries`);
  if (deep > 0) warnings.push(`${deep} folders at depth ${opts.depth} were not entered`);
  if (symlinks > 0) warnings.push(`${symlinks} symlinks were reported but not followed`);
  if (skipped > 0) warnings.push(`${skipped} entries belong to Artifacts this eval does not admit`);
  return { truncated: stopped || walked.truncated, warnings };
}
