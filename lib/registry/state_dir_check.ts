/**
 * The state directory toolhost writes (call directories, artifacts, session roots, logs)
 * must not lead through a symlink when it lies in the workspace: a repository could ship
 * `.toolhost/state` as a link to anywhere, and every call would then write there.
 *
 * @module
 */

import { isAbsolute, relative, resolve } from "node:path";
import { PreparationFailed } from "../errors/errors.ts";
import { lstatPath } from "../workspace/lstat_path.ts";

/**
 * Throw {@link PreparationFailed} when `stateDir`, inside `root`, has a symlink (or a
 * non-folder) among its existing components. Missing components are created later, as
 * real folders; a state directory outside the workspace is the caller's own choice.
 *
 * @example
 * ```ts
 * import { checkStateDir } from "./state_dir_check.ts";
 * checkStateDir("/ws", "/ws/.toolhost/state"); // throws only when a component is a link
 * ```
 */
export function checkStateDir(root: string, stateDir: string): void {
  const rel = relative(root, resolve(stateDir));
  if (rel === "" || rel === ".." || rel.startsWith("../") || isAbsolute(rel)) return;
  const r = lstatPath(root, rel);
  if (r.ok) {
    if (!r.stat.isDirectory()) throw refused(rel);
    return;
  }
  if (r.reason === "missing") return;
  throw refused(r.at);
}

function refused(at: string): PreparationFailed {
  return new PreparationFailed(
    `The state directory leads through \`${at}\`, which is a symlink or not a folder; ` +
      "remove it (toolhost recreates the state directory) or pass --state-dir.",
  );
}
