/**
 * Opening one component of a sandbox lookup under procfs (`/proc/self/fd/N/name`, `name`
 * one checked component), with every check made on the very object that is then used
 * (see `Sandbox`, lib/paths/sandbox.ts). Under Deno a `node:fs` stat costs about 10 µs
 * (most of it building the `Stats` object; object_stat.ts takes the host's own `stat`
 * where one is set), so each open here makes one stat, not the
 * `lstat` before the open and the `fstat` after it that compared identities — and leaves
 * no window between the check and the open.
 *
 * A file ({@link openRegularAt}):
 * 1. the name is opened `O_PATH | O_NOFOLLOW`: nothing is opened for real (no side effect
 *    for a FIFO or a device), and a symlink is the link itself, never its target;
 * 2. that descriptor is stat'ed and refused as an `lstat` of the name would be — a symlink,
 *    an object the eval does not admit, a folder, a special file — with the same messages;
 * 3. only a regular file is opened for reading, through `/proc/self/fd/N` of that
 *    descriptor, which reaches exactly that object; `readlink` must then show it inside
 *    the root.
 *
 * A folder ({@link openFolderAt}) is opened `O_DIRECTORY | O_NOFOLLOW` at once (opening a
 * folder has no side effect; a symlink, a file or a special file is refused by the kernel
 * before anything is opened), and its `fstat` must show a folder the eval admits. When the
 * open fails, an `lstat` of the name picks the message the checks before the open gave.
 *
 * @module
 */

import fs from "node:fs";
import { PathError } from "../errors/errors.ts";
import { closeQuietly } from "./close_quietly.ts";
import { pathErrorFor } from "./errno.ts";
import { showPath } from "./show_path.ts";
import { type ExactStats, lstatExact, type ObjectIdentity } from "./exact_stat.ts";
import { type ObjectStat, statOpenObject } from "./object_stat.ts";

const C = fs.constants;
/**
 * Linux's `O_PATH` (the same value on every architecture Linux runs Node or Deno on; not
 * in `fs.constants`).
 */
const O_PATH = 0o10000000;
const REF_FLAGS = O_PATH | C.O_NOFOLLOW;
/** Re-opening `/proc/self/fd/N` (a magic link, so no `O_NOFOLLOW`); a FIFO never blocks. */
const REOPEN_FLAGS = C.O_RDONLY | C.O_NONBLOCK;
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;

/** What the sandbox checks about an object found inside it. */
export interface OpenGuard {
  /** Whether the object must never be read (an Artifact the eval does not admit). */
  isDenied(st: ObjectIdentity): boolean;
  /** Throw unless the opened `fd` lies inside the sandbox root. */
  confirmInside(fd: number, shown: string): void;
}

/** A regular file opened for reading. */
export interface RegularFile {
  /** The descriptor (the caller closes it). */
  fd: number;
  /** Size in bytes when it was checked. */
  size: number;
}

/**
 * Open `p` (`/proc/self/fd/N/name`, `name` one checked component) as a regular file, as
 * the module documentation says. `shown` is the logical path errors name.
 *
 * @throws {PathError} for a missing name, a symlink, a denied object, a folder, a special
 * file, or an object outside the root.
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { openRegularAt } from "./open_at.ts";
 * const dir = fs.openSync("/etc", "r");
 * const guard = { isDenied: () => false, confirmInside: () => {} };
 * const file = openRegularAt(`/proc/self/fd/${dir}/hostname`, "hostname", guard);
 * fs.closeSync(file.fd);
 * fs.closeSync(dir);
 * ```
 */
export function openRegularAt(p: string, shown: string, guard: OpenGuard): RegularFile {
  let ref: number;
  try {
    ref = fs.openSync(p, REF_FLAGS);
  } catch (e) {
    throw pathErrorFor(e, shown);
  }
  try {
    let st: ObjectStat;
    try {
      st = statOpenObject(ref);
    } catch (e) {
      throw pathErrorFor(e, shown);
    }
    if (st.isSymbolicLink()) throw symlinkError(shown);
    if (guard.isDenied(st)) throw deniedError(shown);
    regularOrThrow(st, shown);
    let fd: number;
    try {
      fd = fs.openSync(`/proc/self/fd/${ref}`, REOPEN_FLAGS);
    } catch (e) {
      throw pathErrorFor(e, shown);
    }
    try {
      guard.confirmInside(fd, shown);
    } catch (e) {
      closeQuietly(fd);
      throw e;
    }
    return { fd, size: Number(st.size) };
  } finally {
    closeQuietly(ref);
  }
}

/**
 * Open `p` (`/proc/self/fd/N/name`) as a folder, as the module documentation says; its
 * descriptor.
 *
 * @throws {PathError} for a missing name, a symlink, a denied object or a non-folder, with
 * the messages of an `lstat` check; for a folder that cannot be opened, why.
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { openFolderAt } from "./open_at.ts";
 * const root = fs.openSync("/", "r");
 * const guard = { isDenied: () => false, confirmInside: () => {} };
 * fs.closeSync(openFolderAt(`/proc/self/fd/${root}/tmp`, "tmp", guard));
 * fs.closeSync(root);
 * ```
 */
export function openFolderAt(p: string, shown: string, guard: OpenGuard): number {
  let fd: number;
  try {
    fd = fs.openSync(p, DIR_FLAGS);
  } catch (e) {
    throw folderRefusal(p, shown, guard, e);
  }
  let refusal: PathError | undefined;
  try {
    const st = statOpenObject(fd);
    if (!st.isDirectory()) refusal = new PathError(`${showPath(shown)} is not a folder.`);
    else if (guard.isDenied(st)) refusal = deniedError(shown);
  } catch (e) {
    refusal = pathErrorFor(e, shown);
  }
  if (refusal === undefined) return fd;
  closeQuietly(fd);
  throw refusal;
}

/**
 * Why the folder `p` could not be opened: the `lstat` checks in their order (missing,
 * symlink, not admitted, not a folder), else the open's own error.
 */
function folderRefusal(p: string, shown: string, guard: OpenGuard, e: unknown): PathError {
  let st: ExactStats | undefined;
  try {
    st = lstatExact(p);
  } catch (e2) {
    return pathErrorFor(e2, shown);
  }
  if (!st) return new PathError(`${showPath(shown)} does not exist.`);
  if (st.isSymbolicLink()) return symlinkError(shown);
  if (guard.isDenied(st)) return deniedError(shown);
  if (!st.isDirectory()) return new PathError(`${showPath(shown)} is not a folder.`);
  return pathErrorFor(e, shown);
}

function symlinkError(shown: string): PathError {
  return new PathError(`${showPath(shown)} is a symlink; built-in tools never follow symlinks.`);
}

function deniedError(shown: string): PathError {
  return new PathError(`${showPath(shown)} belongs to an Artifact this eval does not admit.`);
}

/**
 * Throw unless `st` is a regular file: a folder and a special file each say so.
 *
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { regularOrThrow } from "./open_at.ts";
 * regularOrThrow(fs.statSync("/etc/hostname"), "hostname"); // no error
 * ```
 */
export function regularOrThrow(
  st: Pick<ObjectStat, "isFile" | "isDirectory">,
  shown: string,
): void {
  if (st.isDirectory()) throw new PathError(`${showPath(shown)} is a folder, not a file.`);
  if (!st.isFile()) {
    throw new PathError(
      `${showPath(shown)} is a special file (not a regular file) and cannot be read.`,
    );
  }
}
