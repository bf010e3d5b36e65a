/**
 * One component of a sandbox lookup without procfs (e.g. macOS): the physical path is
 * `lstat`ed (a symlink is refused), then opened with `O_NOFOLLOW`, and the descriptor's
 * `fstat` must show the same device and inode and the expected type — a swap between the
 * two is refused. (Under procfs, open_at.ts checks the opened object itself instead.)
 *
 * @module
 */

import fs from "node:fs";
import { PathError } from "../errors/errors.ts";
import { closeQuietly } from "./close_quietly.ts";
import { kindOfStats } from "./entry_kind.ts";
import { pathErrorFor } from "./errno.ts";
import { type ExactStats, fstatExact, lstatExact, sameObject } from "./exact_stat.ts";
import { showPath } from "./show_path.ts";

/**
 * `lstat` of `p` (shown as `shown`), refusing a missing name and a symlink.
 *
 * @throws {PathError} when it is missing, a symlink, or cannot be stat'ed.
 * @example
 * ```ts
 * import { lstatChecked } from "./checked_open.ts";
 * console.log(lstatChecked("/tmp", "tmp").isDirectory()); // true
 * ```
 */
export function lstatChecked(p: string, shown: string): ExactStats {
  let st: ExactStats | undefined;
  try {
    st = lstatExact(p);
  } catch (e) {
    throw pathErrorFor(e, shown);
  }
  if (!st) throw new PathError(`${showPath(shown)} does not exist.`);
  if (st.isSymbolicLink()) {
    throw new PathError(`${showPath(shown)} is a symlink; built-in tools never follow symlinks.`);
  }
  return st;
}

/**
 * Open `p` with `flags` and confirm the descriptor is the object `st` described, of
 * `kind`; `procfs` as the sandbox has it (how `fstat` is read).
 *
 * @throws {PathError} when it cannot be opened or changed since `st` was taken.
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { lstatChecked, openChecked } from "./checked_open.ts";
 * const flags = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;
 * const fd = openChecked("/tmp", flags, lstatChecked("/tmp", "tmp"), "tmp", "directory", false);
 * fs.closeSync(fd);
 * ```
 */
export function openChecked(
  p: string,
  flags: number,
  st: ExactStats,
  shown: string,
  kind: "file" | "directory",
  procfs: boolean,
): number {
  let fd: number;
  try {
    fd = fs.openSync(p, flags);
  } catch (e) {
    throw pathErrorFor(e, shown);
  }
  let ok = false;
  try {
    const f = fstatExact(fd, procfs);
    ok = sameObject(f, st) && kindOfStats(f) === kind;
  } catch { /* treated as changed */ }
  if (!ok) {
    closeQuietly(fd);
    throw new PathError(`${showPath(shown)} changed while it was being opened; try again.`);
  }
  return fd;
}
