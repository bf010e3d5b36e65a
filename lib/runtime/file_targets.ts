/**
 * Validate admitted file targets before every call: each file Artifact in scope must
 * still be a regular file reached without any symlink. A missing, non-regular or
 * symlink-replaced target fails the call before anything runs.
 *
 * @module
 */

import { lstatSync } from "node:fs";
import { join } from "node:path";
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
  let cur = ws.root;
  const parts = a.relPath.split("/");
  for (let i = 0; i < parts.length; i++) {
    cur = join(cur, parts[i]);
    let st;
    try {
      st = lstatSync(cur);
    } catch {
      return `the file Artifact \`${a.id}\` is missing`;
    }
    if (st.isSymbolicLink()) return `the file Artifact \`${a.id}\` was replaced by a symlink`;
    if (i < parts.length - 1 && !st.isDirectory()) {
      return `the file Artifact \`${a.id}\` is no longer reachable`;
    }
    if (i === parts.length - 1 && !st.isFile()) {
      return `the file Artifact \`${a.id}\` is no longer a regular file`;
    }
  }
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
