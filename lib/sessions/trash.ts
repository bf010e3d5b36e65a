/**
 * Removing a state folder so that a toolhost killed halfway leaves nothing a sweep must
 * wait for. A folder whose recorded groups are all confirmed gone is first renamed, in its
 * own parent, to `<name>.trash` (one atomic step: when several toolhosts sweep at once,
 * exactly one wins, the others find it gone), then removed. A half-removed folder under
 * its real name would lose its owner record and look like one being created, which sweeps
 * leave alone for a while; a `.trash` folder holds nothing to act on — its records are
 * never read — so any sweep removes it at once.
 *
 * @module
 */

import { lstat, rename } from "node:fs/promises";

/**
 * The suffix of a folder renamed away for removal.
 *
 * @example
 * ```ts
 * import { TRASH_SUFFIX } from "./trash.ts";
 * `0123456789abcdef${TRASH_SUFFIX}`; // "0123456789abcdef.trash"
 * ```
 */
export const TRASH_SUFFIX = ".trash";

/**
 * Is `name` the trash name of a folder whose names match `names`?
 *
 * @example
 * ```ts
 * import { isTrash } from "./trash.ts";
 * isTrash("0123456789abcdef.trash", /^[0-9a-f]{16}$/); // true
 * isTrash("0123456789abcdef", /^[0-9a-f]{16}$/); // false
 * ```
 */
export function isTrash(name: string, names: RegExp): boolean {
  return name.endsWith(TRASH_SUFFIX) && names.test(name.slice(0, -TRASH_SUFFIX.length));
}

/**
 * Rename `path` to `<path>.trash` and resolve to the path to remove: the trash name (also
 * when `path` was renamed already, by an earlier attempt or another toolhost, and its
 * trash is still there); or `path` itself when it is one already, or when it cannot be
 * renamed (something already in the way — it is removed in place then); or null when both
 * are gone. The caller checks what it is about to remove again: the rename moves whatever
 * `path` names at that moment.
 *
 * @example
 * ```ts
 * import { moveToTrash } from "./trash.ts";
 * await moveToTrash("/nonexistent/0123456789abcdef"); // null
 * ```
 */
export async function moveToTrash(path: string): Promise<string | null> {
  if (path.endsWith(TRASH_SUFFIX)) return path;
  const trash = `${path}${TRASH_SUFFIX}`;
  try {
    await rename(path, trash);
    return trash;
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOENT") return path;
  }
  try {
    await lstat(trash);
    return trash;
  } catch {
    return null;
  }
}
