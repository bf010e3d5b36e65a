/**
 * Removing an empty directory without waiting for its storage to be reclaimed. A directory
 * holds a data block of its own; when the last reference to a removed directory goes, the
 * kernel frees that block, and on a filesystem mounted with `discard` (ext4 without a
 * journal, as on the bench VM) it sends the device a discard and waits for it inside the
 * `rmdir` — 0.15 ms on a quiet machine, several ms under I/O load, three times per call.
 *
 * Holding the directory open across its `rmdir` leaves the removal itself unchanged — the
 * entry is gone when `rmdir` returns, nothing can be created in a removed directory, and a
 * failure is reported as before — and moves the reclaim to the last `close`. The closes
 * are issued after the call's result — while the next call's tool runs
 * ({@linkcode releaseHeldDirs}, from `runBounded`), or from a timer: under Deno, whose
 * closes all run on the main thread, the reclaim then waits where that thread would
 * wait anyway; on Node `close` runs on the thread pool. At most {@link MAX_PENDING} are
 * held at once. Linux only; elsewhere nothing is held.
 *
 * @module
 */

import { close, closeSync, constants, openSync } from "node:fs";
import process from "node:process";
import { setTimeout } from "node:timers";

/** Read-only, a directory only (never a FIFO that could block, never via a symlink). */
const HOLD_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW |
  constants.O_NONBLOCK;

const LINUX = process.platform === "linux";

/** Most directories held past their removal; beyond it they are closed at once. */
const MAX_PENDING = 64;

let pending: number[] = [];
let scheduled = false;

/** Deno's `close` with a callback still closes on this thread, at a time of its own. */
const DENO = process.versions.deno !== undefined;

function ignore(): void {}

function closeHeld(fd: number): void {
  if (!DENO) return close(fd, ignore);
  try {
    closeSync(fd);
  } catch { /* already closed */ }
}

function flush(): void {
  scheduled = false;
  const fds = pending;
  pending = [];
  for (const fd of fds) closeHeld(fd);
}

/**
 * Close every held directory now: for a moment when this thread would only wait (a
 * call's tool runs), so the reclaim overlaps it.
 *
 * @example
 * ```ts
 * import { releaseHeldDirs } from "./held_dirs.ts";
 * releaseHeldDirs(); // nothing held: nothing to do
 * ```
 */
export function releaseHeldDirs(): void {
  if (pending.length > 0) flush();
}

/**
 * Open the directory `path` (close-on-exec) to hold it across its removal; undefined when
 * it is not a directory (a symlink, a FIFO, gone) or not on Linux.
 *
 * @example
 * ```ts
 * import { holdDir, releaseDirs } from "./held_dirs.ts";
 * import { mkdtempSync, rmdirSync } from "node:fs";
 * const dir = mkdtempSync("/tmp/held-");
 * const fd = holdDir(dir);
 * rmdirSync(dir); // gone now; its storage is reclaimed when `fd` is closed
 * releaseDirs([fd]);
 * ```
 */
export function holdDir(path: string): number | undefined {
  if (!LINUX) return undefined;
  try {
    return openSync(path, HOLD_FLAGS);
  } catch {
    return undefined;
  }
}

/**
 * Close directories held by {@link holdDir} from a timer (the caller does not wait for
 * the kernel to reclaim removed directories), or at once past {@link MAX_PENDING}.
 *
 * @example
 * ```ts
 * import { releaseDirs } from "./held_dirs.ts";
 * releaseDirs([undefined]); // nothing held: nothing to do
 * ```
 */
export function releaseDirs(fds: readonly (number | undefined)[]): void {
  for (const fd of fds) if (fd !== undefined) pending.push(fd);
  if (pending.length > MAX_PENDING) return flush();
  if (scheduled || pending.length === 0) return;
  scheduled = true;
  setTimeout(flush, 0).unref();
}
