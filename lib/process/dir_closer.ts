/**
 * A helper thread that takes over the last reference to removed directories (held_dirs.ts)
 * under Deno, so that the kernel's reclaim of their blocks — a device discard waited for in
 * `close`, 0.15 ms each on a quiet bench VM and 1–2 ms under I/O load, three per tool call —
 * happens on that thread, not on the main one (Deno runs every `node:fs` close, even one
 * with a callback, on the main thread; Node's runs on its thread pool and needs none of this).
 *
 * The caller keeps each descriptor open until the thread holds its own: the thread opens
 * `/proc/self/fd/N` (the kernel resolves it to the very directory open on N, which the
 * caller still holds), raises the count of descriptors it has copied, and closes its copy
 * only once the caller reports that it has closed its own, so the thread's `close` is the
 * last. The caller's `close` of a directory still open elsewhere costs microseconds. The
 * thread opens nothing else, never reads, and its copies are close-on-exec (no child
 * inherits them). Nothing is posted: the descriptors go through a ring in shared memory
 * and a doorbell the thread waits on (`Atomics.wait`), so handing one over costs the main
 * thread a few stores.
 *
 * Started on first demand, from code in a string (`eval`), unreferenced (it never keeps a
 * process alive); until it is online, and wherever it cannot start or has died, callers
 * close on their own thread, as before.
 *
 * @module
 */

import { existsSync } from "node:fs";
import process from "node:process";
import { Worker } from "node:worker_threads";

/** Ring slots: descriptors handed over and not yet closed by both sides, at most. */
export const RING_SLOTS = 96;

/** Shared words: the doorbell, descriptors written, copied by the thread, closed by the caller. */
const BELL = 0;
const WRITTEN = 1;
const COPIED = 2;
const CLOSED = 3;
const HEADER = 4;

/**
 * The thread: waits on the doorbell; copies each newly written descriptor (`-1` when it
 * cannot: the caller's `close` is then the last), raises `COPIED`; closes each copy whose
 * original the caller has closed (`CLOSED`). An error never escapes.
 */
const WORKER_CODE = `
const { workerData } = require("node:worker_threads");
const fs = require("node:fs");
const s = workerData.shared;
const SLOTS = ${RING_SLOTS}, HEADER = ${HEADER};
const FLAGS = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NONBLOCK;
const copies = [];
let copied = 0, closed = 0;
for (;;) {
  const bell = Atomics.load(s, ${BELL});
  const written = Atomics.load(s, ${WRITTEN});
  for (; copied < written; copied++) {
    let own = -1;
    try { own = fs.openSync("/proc/self/fd/" + s[HEADER + (copied % SLOTS)], FLAGS); } catch {}
    copies.push(own);
  }
  Atomics.store(s, ${COPIED}, copied);
  const done = Atomics.load(s, ${CLOSED});
  for (; closed < done; closed++) {
    const own = copies.shift();
    if (own >= 0) try { fs.closeSync(own); } catch {}
  }
  if (Atomics.load(s, ${BELL}) === bell) Atomics.wait(s, ${BELL}, bell, 1000);
}
`;

interface State {
  shared: Int32Array;
  online: boolean;
  dead: boolean;
  /** Counts the caller keeps (the shared words are the thread's view of them). */
  written: number;
  closed: number;
}

let state: State | undefined;
/** Set once a start failed or the thread died: never try again in this process. */
let unavailable = false;

/** The thread is wanted here: Deno (Node closes on its own pool) on Linux with procfs. */
function wanted(): boolean {
  return typeof process.versions.deno === "string" && process.platform === "linux" &&
    existsSync("/proc/self/fd");
}

/**
 * Whether the thread is online; starts it on the first call that finds it missing. Never
 * throws: without it, callers close on their own thread.
 *
 * @example
 * ```ts
 * import { dirCloserReady } from "./dir_closer.ts";
 * console.log(typeof dirCloserReady()); // "boolean" (false at first: the thread is starting)
 * ```
 */
export function dirCloserReady(): boolean {
  if (state !== undefined) return state.online && !state.dead;
  if (unavailable || !wanted()) return false;
  try {
    start();
  } catch {
    unavailable = true;
  }
  return false;
}

function start(): void {
  const shared = new Int32Array(new SharedArrayBuffer(4 * (HEADER + RING_SLOTS)));
  const worker = new Worker(WORKER_CODE, { eval: true, workerData: { shared } });
  const s: State = { shared, online: false, dead: false, written: 0, closed: 0 };
  state = s;
  worker.unref();
  worker.on("online", () => (s.online = true));
  const die = () => {
    s.dead = true;
    unavailable = true;
  };
  worker.on("error", die);
  worker.on("exit", die);
}

/**
 * Hand `fd` (an open directory the caller keeps open until {@linkcode copiedCount} passes
 * it) to the thread. False when the thread is not online or the ring is full: the caller
 * closes it itself.
 *
 * @example
 * ```ts
 * import { handToCloser } from "./dir_closer.ts";
 * // if (!handToCloser(fd)) closeSync(fd);
 * ```
 */
export function handToCloser(fd: number): boolean {
  const s = state;
  if (s === undefined || !s.online || s.dead) return false;
  if (s.written - s.closed >= RING_SLOTS) return false;
  s.shared[HEADER + (s.written % RING_SLOTS)] = fd;
  s.written++;
  Atomics.store(s.shared, WRITTEN, s.written);
  ring(s);
  return true;
}

/**
 * How many handed-over descriptors, in order, the thread holds a copy of: the caller may
 * close its own for each of them, then report it with {@linkcode closedUpTo}. -1 when the
 * thread has died (the caller then closes everything itself).
 *
 * @example
 * ```ts
 * import { copiedCount } from "./dir_closer.ts";
 * console.log(copiedCount() >= -1); // true
 * ```
 */
export function copiedCount(): number {
  const s = state;
  if (s === undefined || s.dead) return -1;
  return Atomics.load(s.shared, COPIED);
}

/**
 * The caller has closed its own descriptor of every handed-over one up to count `n`: the
 * thread closes its copies (the last references).
 *
 * @example
 * ```ts
 * import { closedUpTo } from "./dir_closer.ts";
 * closedUpTo(0); // nothing handed over: nothing to do
 * ```
 */
export function closedUpTo(n: number): void {
  const s = state;
  if (s === undefined || n <= s.closed) return;
  s.closed = n;
  Atomics.store(s.shared, CLOSED, n);
  ring(s);
}

function ring(s: State): void {
  Atomics.add(s.shared, BELL, 1);
  Atomics.notify(s.shared, BELL);
}
