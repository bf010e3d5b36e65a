/**
 * The directories of a directory pin's walk (`tree_pin.ts`): each is opened with
 * `O_DIRECTORY | O_NOFOLLOW` (never through a symlink), the pinned one must still be the
 * directory `resolveDeclaredPath` saw (device, inode), and on Linux each is listed and its
 * entries named through `/proc/self/fd/N/` — inside the directory that was opened, even if a
 * component of its path is swapped for a symlink meanwhile (the `openat` `node:fs` lacks),
 * also past the descriptors one walk holds (each entry's own descriptor, checked).
 *
 * @module
 */

import type { BigIntStats } from "node:fs";
import { closeSync, constants, fstatSync, lstatSync, openSync } from "node:fs";
import type { DeclaredTarget } from "./declared_path.ts";
import { listDirectory } from "./dir_listing.ts";
import type { ListedEntry } from "./host_fs.ts";
import { describeFsError, isPinFailure, pinFailure } from "./failure.ts";
import { descriptorPath } from "./proc_fd.ts";
import { entryName, freeingQueued, type TreeWalk } from "./tree_walk.ts";
import { sortByUtf8 } from "./utf8_order.ts";

const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) |
  (constants.O_NOFOLLOW ?? 0);

/**
 * Most directory descriptors one walk holds at once. A directory deeper than this many
 * unfinished ones is listed through its descriptor, and each of its entries is reached
 * through a descriptor opened again for it and checked to be that directory (`atFrame`):
 * never by a path whose components may have been swapped for symlinks since (only without
 * procfs, which has no `openat`). A chain of single subdirectories holds one descriptor, not
 * one per level.
 */
const MAX_HELD_DIRS = 64;

/** A directory being visited: its sorted entries and how to name them. */
export interface Frame {
  /** Physical path (never put in messages). */
  abs: string;
  /** Prefix its entries are opened by: `/proc/self/fd/N` while `fd` is held, else `abs`. */
  base: string;
  /** The held descriptor, or -1. */
  fd: number;
  /** POSIX path relative to the pinned directory ("" for the pinned directory itself). */
  rel: string;
  /** Its entries in UTF-8 byte order of their names. */
  entries: ListedEntry[];
  /** The index of the next entry to visit. */
  next: number;
  /**
   * The directory's identity (device, inode) when its descriptor is not held and procfs
   * names entries: each entry is then reached through a fresh descriptor that must show it
   * (see {@linkcode atFrame}).
   */
  id?: DirId;
}

/** A directory's device and inode. */
export interface DirId {
  readonly dev: bigint;
  readonly ino: bigint;
}

/**
 * Open and list the pinned directory `target`, which must still be the directory it was
 * resolved as.
 *
 * @example
 * ```ts
 * import { resolveDeclaredPath } from "./declared_path.ts";
 * import { resolvePinOptions } from "./options.ts";
 * import { openRootFrame, releaseFrame } from "./tree_dir_frame.ts";
 * import { newTreeWalk } from "./tree_walk.ts";
 * const walk = newTreeWalk("lib/pins", resolvePinOptions(), () => {});
 * const frame = openRootFrame(walk, await resolveDeclaredPath(".", "lib/pins"));
 * console.log(frame.entries.length > 0); // true
 * releaseFrame(walk, frame);
 * ```
 */
export function openRootFrame(walk: TreeWalk, target: DeclaredTarget): Frame {
  return openDirFrame(walk, target.abs, target.abs, "", "it", target.stat);
}

/**
 * Open the directory named `path` (no symlink followed; `abs` is its physical path, `rel`
 * its path in the pin, `what` how failures name it) and list it through the opened
 * descriptor where procfs allows; keep the descriptor while fewer than `MAX_HELD_DIRS` are.
 * With `expected`, the opened directory must be that one (device, inode).
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { resolvePinOptions } from "./options.ts";
 * import { openDirFrame, releaseFrame } from "./tree_dir_frame.ts";
 * import { newTreeWalk } from "./tree_walk.ts";
 * const walk = newTreeWalk("lib", resolvePinOptions(), () => {});
 * const abs = `${process.cwd()}/lib/pins`;
 * const frame = openDirFrame(walk, abs, abs, "pins", 'entry "lib/pins"');
 * console.log(frame.entries.some((d) => d.name === "tree_pin.ts")); // true
 * releaseFrame(walk, frame);
 * ```
 */
export function openDirFrame(
  walk: TreeWalk,
  path: string,
  abs: string,
  rel: string,
  what: string,
  expected?: BigIntStats,
): Frame {
  let fd: number;
  try {
    fd = freeingQueued(walk, () => openSync(path, DIR_FLAGS));
  } catch (e) {
    if (isPinFailure(e)) throw e; // a queued file's failure, first in walk order
    throw pinFailure(walk.declared, notADirectory(path, what) ?? describeFsError(e, what, rel));
  }
  const base = descriptorPath(fd);
  let entries: ListedEntry[];
  try {
    if (expected !== undefined) sameDirectory(walk, fd, expected, what);
    entries = freeingQueued(walk, () => listDirectory(base ?? abs));
  } catch (e) {
    closeSync(fd);
    throw isPinFailure(e) ? e : pinFailure(walk.declared, describeFsError(e, what, rel));
  }
  sortByUtf8(entries, (d) => d.name);
  if (base === undefined) {
    closeSync(fd);
    return { abs, base: abs, fd: -1, rel, entries, next: 0 };
  }
  if (walk.held >= MAX_HELD_DIRS) {
    // Its path may not lead here by the time an entry is opened (a component swapped for a
    // symlink): each entry is reached through a descriptor checked to be this directory.
    let id: DirId;
    try {
      id = fstatSync(fd, { bigint: true });
    } catch (e) {
      throw pinFailure(walk.declared, describeFsError(e, what, rel));
    } finally {
      closeSync(fd);
    }
    return { abs, base: abs, fd: -1, rel, entries, next: 0, id: { dev: id.dev, ino: id.ino } };
  }
  walk.held++;
  return { abs, base, fd, rel, entries, next: 0 };
}

/**
 * Close the frame's descriptor, if it holds one (once its last entry is opened, or the walk
 * ends): no entry of it is opened after.
 *
 * @example
 * ```ts
 * import { resolvePinOptions } from "./options.ts";
 * import { releaseFrame } from "./tree_dir_frame.ts";
 * import { newTreeWalk } from "./tree_walk.ts";
 * const walk = newTreeWalk("lib/pins", resolvePinOptions(), () => {});
 * releaseFrame(walk, { abs: "/x", base: "/x", fd: -1, rel: "", entries: [], next: 0 });
 * ```
 */
export function releaseFrame(walk: TreeWalk, frame: Frame): void {
  if (frame.fd < 0) return;
  closeSync(frame.fd);
  frame.fd = -1;
  frame.base = frame.abs;
  walk.held--;
}

/**
 * Run `fn` with the prefix that names `frame`'s entries: its held descriptor's
 * (`/proc/<pid>/fd/N`), or, for a directory past the held ones, that of a descriptor opened
 * for this call by path (`O_DIRECTORY | O_NOFOLLOW`) and checked to be the very directory
 * listed (device, inode) — a component of its path swapped for a symlink since fails the
 * pin instead of leading elsewhere — closed once `fn` returns. Without procfs, its path.
 *
 * @example
 * ```ts
 * import { resolveDeclaredPath } from "./declared_path.ts";
 * import { resolvePinOptions } from "./options.ts";
 * import { atFrame, openRootFrame, releaseFrame } from "./tree_dir_frame.ts";
 * import { newTreeWalk } from "./tree_walk.ts";
 * const walk = newTreeWalk("lib/pins", resolvePinOptions(), () => {});
 * const frame = openRootFrame(walk, await resolveDeclaredPath(".", "lib/pins"));
 * console.log(atFrame(walk, frame, (base) => base.length > 0)); // true
 * releaseFrame(walk, frame);
 * ```
 */
export function atFrame<T>(walk: TreeWalk, frame: Frame, fn: (base: string) => T): T {
  if (frame.fd >= 0 || frame.id === undefined) return fn(frame.base);
  const what = frame.rel === "" ? "it" : entryName(walk, frame.rel);
  let fd: number;
  try {
    fd = freeingQueued(walk, () => openSync(frame.abs, DIR_FLAGS));
  } catch (e) {
    if (isPinFailure(e)) throw e; // a queued file's failure, first in walk order
    const why = notADirectory(frame.abs, what) ?? describeFsError(e, what, frame.rel);
    throw pinFailure(walk.declared, why);
  }
  try {
    sameDirectory(walk, fd, frame.id, what);
    return fn(descriptorPath(fd) ?? frame.abs);
  } finally {
    closeSync(fd);
  }
}

/** Throw unless the directory open on `fd` is the one `expected` describes (device, inode). */
function sameDirectory(walk: TreeWalk, fd: number, expected: DirId, what: string): void {
  const st = fstatSync(fd, { bigint: true });
  if (st.dev !== expected.dev || st.ino !== expected.ino) {
    throw pinFailure(walk.declared, `${what} changed while it was being pinned`);
  }
}

/** Why `path` (listed or resolved as a directory) failed to open as one, if it is not one now. */
function notADirectory(path: string, what: string): string | undefined {
  let st: BigIntStats;
  try {
    st = lstatSync(path, { bigint: true });
  } catch {
    return undefined;
  }
  if (st.isSymbolicLink()) return `${what} is a symlink`;
  return st.isDirectory() ? undefined : `${what} is no longer a directory`;
}
