/**
 * Validate the admitted targets before every call: each Artifact in scope must still be
 * where the workspace declared it, reached without any symlink — a file Artifact a regular
 * file, a folder Artifact a folder. A missing, replaced or symlink-swapped target fails the
 * call before anything runs (built-ins check again after opening, see `Sandbox.open`).
 *
 * @module
 */

import { realpathSync } from "node:fs";
import { lstatPath } from "../workspace/lstat_path.ts";
import type { Workspace } from "../workspace/types.ts";

/**
 * Why an Artifact's target is no longer admissible, or undefined when it is.
 *
 * @example
 * ```ts
 * import { targetProblem } from "./scope_targets.ts";
 * // targetProblem(ws, "notes") → undefined when docs/notes.md is still a regular file
 * ```
 */
export function targetProblem(ws: Workspace, artifactId: string): string | undefined {
  const a = ws.artifacts.get(artifactId);
  if (!a) return undefined;
  if (a.kind !== "file" && isStillRealFolder(a.physicalPath)) return undefined;
  const what = a.kind === "file" ? "file Artifact" : "Artifact folder";
  const r = lstatPath(ws.root, a.relPath);
  if (!r.ok) {
    return {
      missing: `the ${what} \`${a.id}\` is missing`,
      symlink: `the ${what} \`${a.id}\` was replaced by a symlink`,
      "not-folder": `the ${what} \`${a.id}\` is no longer reachable`,
    }[r.reason];
  }
  if (a.kind === "file" && !r.stat.isFile()) {
    return `the file Artifact \`${a.id}\` is no longer a regular file`;
  }
  if (a.kind !== "file" && !r.stat.isDirectory()) {
    return `the Artifact folder \`${a.id}\` is no longer a folder`;
  }
  if (a.kind !== "file" && !isStillRealFolder(a.physicalPath)) {
    return `the Artifact folder \`${a.id}\` no longer resolves to where it was declared`;
  }
  return undefined;
}

/**
 * The common case in one call: a folder whose realpath is its declared (canonical) path has
 * no symlink on the way and is a folder (`dir/.` of a file fails). One libc realpath costs
 * a fifth of an `lstat` per component under Deno's node:fs.
 */
function isStillRealFolder(physicalPath: string): boolean {
  try {
    return realpathSync.native(`${physicalPath}/.`) === physicalPath;
  } catch {
    return false;
  }
}

/**
 * Check every Artifact of a scope; returns the first problem. `checked` names a folder
 * Artifact already found where it was declared (by `pinRoot`), which is skipped.
 *
 * @example
 * ```ts
 * import { checkScopeTargets } from "./scope_targets.ts";
 * // checkScopeTargets(ws, ["app", "notes"])
 * ```
 */
export function checkScopeTargets(
  ws: Workspace,
  scope: readonly string[],
  checked?: string,
): string | undefined {
  for (const id of scope) {
    if (id === checked) continue;
    const why = targetProblem(ws, id);
    if (why) return why;
  }
  return undefined;
}
