/**
 * Turn filesystem errors into value-free {@linkcode PathError}s that name only the
 * logical path (Node/Deno messages contain physical paths and are never passed on).
 *
 * @module
 */

import { PathError } from "../errors/errors.ts";
import { showPath } from "./show_path.ts";

/**
 * The `code` of a Node-style system error (`ENOENT`, ...), or undefined.
 *
 * @example
 * ```ts
 * import { errnoOf } from "./errno.ts";
 * errnoOf(Object.assign(new Error("x"), { code: "ENOENT" })); // "ENOENT"
 * ```
 */
export function errnoOf(e: unknown): string | undefined {
  if (typeof e === "object" && e !== null && "code" in e) {
    const code = (e as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

/**
 * Map a filesystem error to a PathError about a logical path.
 *
 * @example
 * ```ts
 * import { pathErrorFor } from "./errno.ts";
 * const e = pathErrorFor(Object.assign(new Error("x"), { code: "ELOOP" }), "a/b");
 * console.log(e.message); // "`a/b` is a symlink; built-in tools never follow symlinks."
 * ```
 */
export function pathErrorFor(e: unknown, logical: string): PathError {
  if (e instanceof PathError) return e;
  switch (errnoOf(e)) {
    case "ENOENT":
      return new PathError(`${showPath(logical)} does not exist.`);
    case "ELOOP":
      return new PathError(
        `${showPath(logical)} is a symlink; built-in tools never follow symlinks.`,
      );
    case "ENOTDIR":
      return new PathError(`A component of ${showPath(logical)} is not a folder.`);
    case "EISDIR":
      return new PathError(`${showPath(logical)} is a folder, not a file.`);
    case "EACCES":
    case "EPERM":
      return new PathError(`${showPath(logical)} cannot be read: permission denied.`);
    case "EMFILE":
    case "ENFILE":
      return new PathError(
        `${showPath(logical)} could not be opened: too many open files; try again.`,
      );
    case "ENAMETOOLONG":
      return new PathError(`${showPath(logical)} is too long for the filesystem.`);
    case "ENXIO":
    case "ESPIPE":
    case "EAGAIN":
      return new PathError(`${showPath(logical)} is a special file and cannot be read.`);
    default:
      return new PathError(`${showPath(logical)} could not be opened.`);
  }
}
