/**
 * The state directory toolhost writes (call directories, artifacts, session roots, logs)
 * must not lead through a symlink when it lies in the workspace: a repository could ship
 * `.toolhost/state` as a link to anywhere, and every call would then write there.
 *
 * It must also be private, checked and not only created so: everything below it (owner
 * records, journals with their group tags, tool output, spilled artifacts, audit lines)
 * is private only while other users cannot enter it, and its folders stay where toolhost
 * put them only while no other user owns it. An existing state directory of this user
 * that is open to others (a checkout or an archive made it 0755 or 0777) is made 0700;
 * one owned by another user is refused. Outside the workspace, only a folder that is empty
 * or already toolhost's is made private (never a home or a system folder), and the
 * workspace root, or a folder that holds it, is never a state directory.
 *
 * @module
 */

import { chmodSync, type Dir, lstatSync, opendirSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import process from "node:process";
import { PreparationFailed } from "../errors/errors.ts";
import { lstatPath } from "../workspace/lstat_path.ts";

/**
 * Throw {@link PreparationFailed} when `stateDir`, inside `root`, has a symlink (or a
 * non-folder) among its existing components, or when it exists owned by another user;
 * make an existing one of this user private (0700). Missing components are created later,
 * as private folders; where a state directory outside the workspace lies is the caller's
 * own choice.
 *
 * @example
 * ```ts
 * import { checkStateDir } from "./state_dir_check.ts";
 * checkStateDir("/ws", "/ws/.toolhost/state"); // throws only when a component is a link
 * ```
 */
export function checkStateDir(root: string, stateDir: string): void {
  if (stateDir.trim() === "") { // resolved, it would be the current folder (made 0700, filled)
    throw new PreparationFailed("The state directory's name is empty; pass a folder, or none.");
  }
  const rel = relative(root, resolve(stateDir));
  const up = relative(resolve(stateDir), root);
  if (rel === "" || !(up === ".." || up.startsWith("../") || isAbsolute(up))) {
    // The workspace root or a folder holding it: made private and filled, it would be.
    throw new PreparationFailed(
      "The state directory is the workspace root or a folder that holds it; pass a folder " +
        "of its own, such as the default .toolhost/state.",
    );
  }
  if (rel === ".." || rel.startsWith("../") || isAbsolute(rel)) {
    return makePrivate(resolve(stateDir), true);
  }
  const r = lstatPath(root, rel);
  if (r.ok) {
    if (!r.stat.isDirectory()) throw refused(rel);
    return makePrivate(r.path, false);
  }
  if (r.reason === "missing") return;
  throw refused(r.at);
}

/**
 * An existing state directory: this user's and 0700 (made so), else refused. Outside the
 * workspace (`outside`), only a folder that is empty or already holds toolhost's own
 * folders is made private: any other folder open to others (a home, a system folder) is
 * the user's, and its mode is not toolhost's to change.
 */
function makePrivate(dir: string, outside: boolean): void {
  const uid = process.getuid?.();
  if (uid === undefined) return; // no users to keep out (Windows)
  let st;
  try {
    st = statSync(dir);
  } catch {
    return; // missing: created private when first needed
  }
  if (!st.isDirectory()) return; // reported where it is used
  if (st.uid !== uid) {
    throw new PreparationFailed(
      "The state directory belongs to another user, who could read or replace what toolhost " +
        "keeps there; pass a --state-dir of your own.",
    );
  }
  if ((st.mode & 0o077) === 0) return;
  if ((st.mode & 0o1000) !== 0) { // a shared folder such as /tmp: never made private
    throw new PreparationFailed(
      "The state directory is a shared folder (its sticky bit is set); pass a --state-dir " +
        "of its own, such as a new folder inside it.",
    );
  }
  if (outside && !emptyOrOurs(dir)) {
    throw new PreparationFailed(
      "The state directory is open to other users and holds files that are not toolhost's; " +
        "pass a --state-dir of its own (a new folder), or make this one private (chmod 700).",
    );
  }
  chmodSync(dir, 0o700);
}

/** The folders toolhost makes at the top of a state directory (any one marks it as ours). */
const OWN_FOLDERS = ["calls", "sessions", "artifacts"];

/** Whether `dir` is empty or holds one of toolhost's own folders (one entry read at most). */
function emptyOrOurs(dir: string): boolean {
  // Any entry of these names (the checks where each is used refuse a link or a file).
  if (OWN_FOLDERS.some((name) => lstatSync(join(dir, name), { throwIfNoEntry: false }))) {
    return true;
  }
  let listing: Dir | undefined;
  try {
    listing = opendirSync(dir);
    return listing.readSync() === null;
  } catch {
    return false;
  } finally {
    listing?.closeSync();
  }
}

function refused(at: string): PreparationFailed {
  return new PreparationFailed(
    `The state directory leads through \`${at}\`, which is a symlink or not a folder; ` +
      "remove it (toolhost recreates the state directory) or pass --state-dir.",
  );
}
