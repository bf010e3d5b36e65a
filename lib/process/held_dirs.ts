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
 * ({@linkcode releaseHeldDirs}, from `runBounded`), or from a timer. On Node `close` runs
 * on the thread pool. Under Deno, whose closes all run on the main thread, the last
 * reference goes to a helper thread (dir_closer.ts) once closes here were seen to wait
 * ({@link SLOW_CLOSES_BEFORE_HELPER}) and it is online, so the reclaim waits there (a
 * quick tool's exit was otherwise handled only after up to three discards, 1–2 ms each
 * under I/O load); before that, or without it, the main thread closes them while the
 * next call's tool runs. At most {@link MAX_PENDING} are held at once by this
 * thread, besides those the helper has copied ({@link RING_SLOTS} at most). Linux only;
 * elsewhere nothing is held.
 *
 * @module
 */

import { close, closeSync, constants, openSync } from "node:fs";
import process from "node:process";
import { setTimeout } from "node:timers";
import { closedUpTo, copiedCount, dirCloserReady, handToCloser, RING_SLOTS } from "./dir_closer.ts";

/** Read-only, a directory only (never a FIFO that could block, never via a symlink). */
const HOLD_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW |
  constants.O_NONBLOCK;

const LINUX = process.platform === "linux";

/** Most directories held past their removal; beyond it they are closed at once. */
const MAX_PENDING = 64;

let pending: number[] = [];
let scheduled = false;
/** Handed to the helper thread, in order, until it has copied them (then closed here). */
let handed: number[] = [];
/** How many handed-over descriptors this thread has closed. */
let handedClosed = 0;
/** Looks in a row that found nothing new copied (the next look waits longer). */
let copyWaits = 0;

/** Deno's `close` with a callback still closes on this thread, at a time of its own. */
const DENO = process.versions.deno !== undefined;

function ignore(): void {}

/**
 * A close on this thread slower than this waited for a reclaim (a discard; a plain close
 * takes microseconds).
 */
const SLOW_CLOSE_MS = 0.1;
/**
 * Slow closes on this thread (a reclaim waited for each) before the helper thread is
 * started: it costs its start (tens of ms of CPU, a pause of the main thread that grows
 * with the machine's load) and about 17 MiB, worth it only to a process that makes many
 * calls on a filesystem whose reclaim waits. A one-shot call never starts it.
 */
const SLOW_CLOSES_BEFORE_HELPER = 24;
let slowCloses = 0;

function closeHeld(fd: number, last = true): void {
  if (!DENO) return close(fd, ignore);
  const t0 = last ? performance.now() : 0;
  try {
    closeSync(fd);
  } catch { /* already closed */ }
  if (last && performance.now() - t0 > SLOW_CLOSE_MS) slowCloses++;
}

let preferred = false;

let startScheduled = false;

/**
 * Whether this process hands its held directories to the helper thread. Its start (a
 * pause of this thread) is left to a timer, after the call whose cleanup asked for it.
 */
function helperWanted(): boolean {
  if (!DENO || !LINUX || !(preferred || slowCloses >= SLOW_CLOSES_BEFORE_HELPER)) return false;
  if (startScheduled) return dirCloserReady();
  startScheduled = true;
  setTimeout(dirCloserReady, 0).unref();
  return false;
}

/**
 * Hand held directories to the helper thread from now on (starting it), whatever closes
 * here cost — for tests, and for a process that knows its closes wait. Under Deno on
 * Linux only; elsewhere nothing changes.
 *
 * @example
 * ```ts
 * import { preferDirCloser } from "./held_dirs.ts";
 * preferDirCloser();
 * ```
 */
export function preferDirCloser(): void {
  preferred = true;
  startScheduled = true;
  dirCloserReady();
}

function flush(): void {
  scheduled = false;
  const fds = pending;
  pending = [];
  for (const fd of fds) closeHeld(fd);
  reap();
}

/**
 * Close this thread's descriptor of each handed-over directory the helper holds a copy
 * of (not the last reference: no reclaim waited for here), and tell it to close its own.
 * Those it has not copied yet stay open (a descriptor number closed before it is copied
 * could name another directory by then) and are looked at again, each time a little
 * later; once the helper has died, this thread closes them all.
 */
function reap(): void {
  if (handed.length === 0) return;
  const copied = copiedCount();
  if (copied < 0) {
    const fds = handed;
    handed = [];
    for (const fd of fds) closeHeld(fd);
    return;
  }
  const n = Math.min(copied - handedClosed, handed.length);
  if (n > 0) {
    for (const fd of handed.splice(0, n)) closeHeld(fd, false);
    handedClosed += n;
    closedUpTo(handedClosed);
    copyWaits = 0;
  } else copyWaits++;
  if (handed.length > 0) schedule(Math.min(2 ** copyWaits, 100));
}

function schedule(ms: number): void {
  if (scheduled) return;
  scheduled = true;
  setTimeout(flush, ms).unref();
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
  if (pending.length > 0 || handed.length > 0) flush();
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
  const helper = helperWanted();
  for (const fd of fds) {
    if (fd === undefined) continue;
    if (helper && handed.length < RING_SLOTS && handToCloser(fd)) handed.push(fd);
    else pending.push(fd);
  }
  if (pending.length > MAX_PENDING) return flush();
  if (pending.length > 0 || handed.length > 0) schedule(0);
}
