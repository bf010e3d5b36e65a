/**
 * Removal of one session's artifact output directory, without traversal.
 *
 * @module
 */

import { promises as fsp } from "node:fs";
import { join } from "node:path";
import { CleanupFailed } from "../errors/errors.ts";
import { removeTreeNoFollow } from "../paths/remove_tree.ts";

/** Session ids accepted by {@link removeSessionSubtree}. `.` and `..` cannot match. */
export const SESSION_ID_PATTERN: RegExp = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function errno(e: unknown): string | undefined {
  return (e as { code?: string } | null)?.code;
}

/**
 * Remove `<root>/<sessionId>` (one session's artifact output). The id is checked against
 * {@link SESSION_ID_PATTERN} first; an invalid id is a silent no-op, since nothing it
 * could name may exist under the root and cleanup must never become a traversal
 * primitive. A missing subtree is not an error. If `<root>/<sessionId>` is a symlink
 * only the link is removed; inside the directory, symlinks are removed, never followed.
 * Throws {@link CleanupFailed} (no path in the message) when removal fails.
 *
 * @example
 * ```ts
 * import { removeSessionSubtree } from "./session_subtree.ts";
 * await removeSessionSubtree("/tmp/state/artifacts", "s-123"); // ok even if missing
 * await removeSessionSubtree("/tmp/state/artifacts", "../etc"); // silent no-op
 * ```
 */
export async function removeSessionSubtree(root: string, sessionId: string): Promise<void> {
  if (typeof root !== "string" || root === "" || root.includes("\0")) return;
  if (typeof sessionId !== "string" || !SESSION_ID_PATTERN.test(sessionId)) return;
  const target = join(root, sessionId);
  let st;
  try {
    st = await fsp.lstat(target);
  } catch (e) {
    if (errno(e) === "ENOENT" || errno(e) === "ENOTDIR") return;
    throw new CleanupFailed(`session artifact directory could not be inspected (${errno(e)})`);
  }
  try {
    if (st.isDirectory()) await removeTreeNoFollow(target); // any depth, no link followed
    else await fsp.unlink(target);
  } catch (e) {
    if (errno(e) === "ENOENT") return;
    throw new CleanupFailed(
      `session artifact directory could not be removed (${errno(e) ?? "error"}); ` +
        "check permissions under the state directory and retry",
    );
  }
}
