/**
 * Git's control folder is off limits to the write tools. A `.git` folder (or a `.git`
 * file, a "gitlink" naming the repository folder elsewhere) holds configuration and hooks
 * that make git run programs, so a model that could write there could run any command on
 * the next `git_status`. Every component of a write target is checked, with the spellings
 * that reach `.git` on case-insensitive or normalising filesystems treated alike (as git
 * itself does when it checks out a tree): any letter case, trailing dots and spaces
 * (Windows), the short name `git~1` (NTFS) and code points HFS+ ignores.
 *
 * `.gitattributes`, `.gitignore` and `.gitmodules` stay writable: they are project data.
 * Attributes only name drivers, and the git tools refuse a repository whose configuration
 * defines a driver program (see git_safety.ts), so no attribute can make git run one.
 *
 * @module
 */

import { PathError } from "../errors/errors.ts";
import { showPath } from "../paths/show_path.ts";

/** Code points HFS+ ignores when it compares names (git's `is_hfs_dotgit` list). */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * Whether a path component names (or, on some filesystem, reaches) git's control entry
 * `.git`.
 *
 * @example
 * ```ts
 * import { isGitControlName } from "./git_path.ts";
 * isGitControlName(".GIT"); // true
 * isGitControlName(".gitattributes"); // false
 * ```
 */
export function isGitControlName(name: string): boolean {
  const n = name.replace(HFS_IGNORABLE, "").replace(/[. ]+$/, "").toLowerCase();
  return n === ".git" || n === "git~1";
}

/**
 * A write target inside git's control folder was refused.
 *
 * @example
 * ```ts
 * import { GitControlPathError } from "./git_path.ts";
 * const e = new GitControlPathError("`.git/config` is inside git's control folder.");
 * console.log(e.code); // "PATH_ERROR"
 * ```
 */
export class GitControlPathError extends PathError {}

/**
 * Throw unless no component of the logical path `logical` nor of `components` (the names
 * opened beneath the sandbox root) is git's control entry.
 *
 * @throws {GitControlPathError} naming the logical path.
 * @example
 * ```ts
 * import { refuseGitControlPath } from "./git_path.ts";
 * refuseGitControlPath("src/a.ts", ["src", "a.ts"]); // fine
 * // refuseGitControlPath(".git/config", [".git", "config"]); // throws
 * ```
 */
export function refuseGitControlPath(logical: string, components: readonly string[]): void {
  if (logical.split("/").some(isGitControlName) || components.some(isGitControlName)) {
    throw new GitControlPathError(
      `${showPath(logical)} is inside git's control folder (\`.git\`); the write tools never ` +
        "change it, because git configuration and hooks there can run programs.",
    );
  }
}
