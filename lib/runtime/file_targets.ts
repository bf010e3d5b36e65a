/**
 * Validate admitted file targets before every call: each file Artifact in scope must
 * still be a regular file reached without any symlink. A missing, non-regular or
 * symlink-replaced target fails the call before anything runs.
 *
 * @module
 */

import { lstatPath } from "../workspace/lstat_path.ts";
import type { Workspace } from "../workspace/types.ts";

/**
 * Why a file Artifact's target is no longer admissible, or undefined when it is.
 *
 * @example
 * ```ts
 * import { fileTargetProblem } from "./file_targets.ts";
 * // fileTargetProblem(ws, "notes") → undefined when docs/notes.md is still a regular file
 * ```
 */
export function fileTargetProblem(ws: Workspace, artifactId: string): string | undefined {
  const a = ws.artifacts.get(artifactId);
  if (!a || a.kind !== "file") return undefined;
  const r = lstatPath(ws.root, a.relPath);
  if (!r.ok) {
    return {
      missing: `the file Artifact \`${a.id}\` is missing`,
      symlink: `the file Artifact \`${a.id}\` was replaced by a symlink`,
      "not-folder": `the file Artifact \`${a.id}\` is no longer reachable`,
    }[r.reason];
  }
  if (!r.stat.isFile()) return `the file Artifact \`${a.id}\` is no longer a regular file`;
  return undefined;
}

/**
 * Check every file Artifact of a scope; returns the first problem.
 *
 * @example
 * ```ts
 * import { checkFileTargets } from "./file_targets.ts";
 * // checkFileTargets(ws, ["app", "notes"])
 * ```
 */
export function checkFileTargets(ws: Workspace, scope: readonly string[]): string | undefined {
  for (const id of scope) {
    const why = fileTargetProblem(ws, id);
    if (why) return why;
  }
  return undefined;
}
