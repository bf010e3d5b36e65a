/**
 * One file descriptor held back for the reads that must not fail in a descriptor flood.
 *
 * A process group's identity (its leader's start time, and the boot id) is read from
 * `/proc` right after the spawn, synchronously, while the child cannot have been reaped:
 * later the pid may name someone else. Under `EMFILE` (a flood of connections or calls
 * using every descriptor this process may hold) that one read used to fail, and the
 * record kept a null start time for good: the group could then be neither signalled
 * (it could not be confirmed as ours) nor swept after a crash. With a reserve, a failed
 * read gives the held descriptor back and reads once more, then holds one again. This is
 * the accept-loop trick servers use for `EMFILE`; another thread may take the freed
 * number first (then the second read fails too, as it did without the reserve).
 *
 * A number that no longer names the held file (closed elsewhere and taken by another
 * file) is abandoned, never closed here.
 * @module
 */

import { closeSync, fstatSync, openSync } from "node:fs";

/** The held descriptor and what it was opened on (device, inode, mode). */
let reserve: { fd: number; id: string } | undefined;

/** What descriptor `fd` is open on, or undefined when it is not open. */
function identity(fd: number): string | undefined {
  try {
    const st = fstatSync(fd);
    return `${st.dev}:${st.ino}:${st.rdev}:${st.mode}`;
  } catch {
    return undefined;
  }
}

/**
 * Hold the reserve descriptor (`/dev/null`, close-on-exec) if none is held; a failure to
 * open it is silent (the next call tries again).
 *
 * @example
 * ```ts
 * import { holdReserve } from "./fd_reserve.ts";
 * holdReserve();
 * ```
 */
export function holdReserve(): void {
  if (reserve !== undefined) return;
  try {
    const fd = openSync("/dev/null", "r");
    const id = identity(fd);
    if (id === undefined) closeSync(fd);
    else reserve = { fd, id };
  } catch {
    // EMFILE now: held again after the next read that needs it
  }
}

/**
 * The number of the held reserve descriptor, or undefined when none is held (for tests and
 * diagnostics: closing it is never right).
 *
 * @example
 * ```ts
 * import { holdReserve, reserveFd } from "./fd_reserve.ts";
 * holdReserve();
 * console.log(typeof reserveFd()); // "number"
 * ```
 */
export function reserveFd(): number | undefined {
  return reserve?.fd;
}

/**
 * Run `read`; when `failed(result)` says it failed and a reserve descriptor is held, give
 * the descriptor back, run `read` once more and hold a reserve again. `read` must be
 * synchronous (nothing else of this thread may take the freed number meanwhile).
 *
 * @example
 * ```ts
 * import { withReserve } from "./fd_reserve.ts";
 * import { readFileSync } from "node:fs";
 * const text = withReserve(() => {
 *   try {
 *     return readFileSync("/proc/loadavg", "latin1");
 *   } catch {
 *     return null;
 *   }
 * }, (t) => t === null);
 * console.log(text !== null); // true
 * ```
 */
export function withReserve<T>(read: () => T, failed: (result: T) => boolean): T {
  holdReserve();
  const first = read();
  if (!failed(first) || reserve === undefined) return first;
  const held = reserve;
  reserve = undefined;
  // The number is given back only while it still names the reserve: code elsewhere that
  // closed it by mistake may have let another file take it, which is never closed here.
  if (identity(held.fd) !== held.id) return first;
  closeSync(held.fd);
  try {
    return read();
  } finally {
    holdReserve();
  }
}
