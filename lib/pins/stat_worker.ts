/**
 * A helper thread that `fstat`s descriptors the main thread opened, so a large directory pin
 * uses a second core (under Deno a stat costs ~13 us of JavaScript per file, half of a small
 * file's whole cost).
 *
 * The thread only ever looks at descriptors: under Deno (whose `node:fs` descriptors belong to
 * one isolate) a `stat` of `/proc/self/fd/N`, which the kernel resolves to the very file open
 * on N; under Node `fstatSync(N)`. It opens, reads and closes nothing, so every descriptor,
 * check and budget stays with the caller: a result is used only while the caller still holds
 * the descriptors it asked about, and a result for a descriptor closed meanwhile is dropped.
 *
 * The thread is started on first demand, from code in a string (`eval`), so no build has to
 * ship a separate file; until it is online, and wherever it cannot start or has died, callers
 * stat on their own thread. It is unreferenced while idle: it never keeps a process alive.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import process from "node:process";
import { Worker } from "node:worker_threads";
import { procfsAvailable } from "./proc_fd.ts";

/** A descriptor's answer: its size when it is a regular file, -1 when it is not, -2 on error. */
export type StatAnswer = number;

interface State {
  worker: Worker;
  /** Shared with the thread: requests with an id at or below `[0]` are no longer wanted. */
  dropped: Int32Array;
  online: boolean;
  dead: boolean;
  nextId: number;
}

/**
 * The thread's code. For `{ id, fds, sizes, done }` it writes one answer per descriptor into
 * the shared `sizes` (see {@linkcode StatAnswer}), in order, setting `done[1]` to how many
 * are written after each, then sets `done[0]` to 1; it stops early, leaving `done[0]` at 0,
 * once the request is dropped. An error never escapes (the caller re-stats to learn it).
 * Nothing is posted back: the caller reads the shared memory.
 */
const WORKER_CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const dropped = workerData.dropped;
const stat = workerData.byPath
  ? (fd) => fs.statSync("/proc/self/fd/" + fd)
  : (fd) => fs.fstatSync(fd);
parentPort.on("message", (m) => {
  for (let i = 0; i < m.fds.length; i++) {
    if (Atomics.load(dropped, 0) >= m.id) return;
    try {
      const st = stat(m.fds[i]);
      m.sizes[i] = st.isFile() ? st.size : -1;
    } catch {
      m.sizes[i] = -2;
    }
    Atomics.store(m.done, 1, i + 1);
  }
  Atomics.store(m.done, 0, 1);
  Atomics.notify(m.done, 0);
});
`;

let state: State | undefined;
/** Set once a start failed or the thread died: never try again in this process. */
let unavailable = false;
/** Cleared by tests that need the one-thread path whatever the tree's size. */
let allowed = true;

/**
 * Whether the helper thread is online; starts it on the first call that finds it missing
 * (where procfs shows descriptors). Never throws: without a thread, callers stat themselves.
 *
 * @example
 * ```ts
 * import { statWorkerReady } from "./stat_worker.ts";
 * console.log(statWorkerReady()); // false at first: the thread is starting
 * ```
 */
export function statWorkerReady(): boolean {
  if (state !== undefined) return state.online && !state.dead;
  if (unavailable || !allowed || !procfsAvailable()) return false;
  try {
    start();
  } catch {
    unavailable = true;
  }
  return false;
}

function start(): void {
  const byPath = typeof process.versions.deno === "string";
  const dropped = new Int32Array(new SharedArrayBuffer(4));
  dropped[0] = -1;
  const worker = new Worker(WORKER_CODE, { eval: true, workerData: { byPath, dropped } });
  const s: State = { worker, dropped, online: false, dead: false, nextId: 0 };
  state = s;
  worker.unref(); // nothing is awaited from it: it never keeps the process alive
  worker.on("online", () => {
    s.online = true;
  });
  const die = () => {
    if (s.dead) return;
    s.dead = true;
    unavailable = true;
    if (state === s) state = undefined;
  };
  worker.on("error", die);
  worker.on("exit", die);
}

/**
 * Whether a core looks idle: the one-minute load average (`/proc/loadavg`) is below the
 * number of cores. On a busy machine the thread only competes with the walk for a core (at
 * load 5–10 on 2 cores a pin took ~10% longer with it), so a walk does without. False where
 * procfs is unavailable or unreadable.
 *
 * @example
 * ```ts
 * import { coreToSpare } from "./stat_worker.ts";
 * console.log(typeof coreToSpare()); // "boolean"
 * ```
 */
export function coreToSpare(): boolean {
  if (!procfsAvailable()) return false;
  try {
    const load = Number(readFileSync("/proc/loadavg", "latin1").split(" ")[0]);
    return Number.isFinite(load) && load < availableParallelism();
  } catch {
    return false;
  }
}

/** A request to the helper thread; its answer is in shared memory. */
export interface StatRequest {
  /** Increasing with each request (see {@linkcode dropStatRequest}). */
  id: number;
  /** One {@linkcode StatAnswer} per descriptor: `sizes[i]` is valid once `done[1] > i`. */
  sizes: Float64Array;
  /**
   * `[0]` becomes 1 when `sizes` is complete (even an empty request is answered: it marks
   * that the thread has come to it); `[1]`, where present, counts the answers written so far.
   */
  done: Int32Array;
  /** The thread asked (whether it stopped; what it was told to drop). */
  thread: { readonly dead: boolean; readonly dropped: Int32Array };
}

/**
 * Ask the helper thread for the size of each regular file open on `fds`, or undefined when
 * it is not online. The caller must keep every descriptor open until it has read a complete
 * answer ({@linkcode statAnswered}), or never read it.
 *
 * @example
 * ```ts
 * import { closeSync, openSync } from "node:fs";
 * import { statAnswered, statOnWorker, statWorkerReady } from "./stat_worker.ts";
 * if (statWorkerReady()) {
 *   const fd = openSync("deno.json", "r");
 *   const req = statOnWorker([fd]);
 *   if (req !== undefined && statAnswered(req)) console.log(req.sizes[0]);
 *   closeSync(fd);
 * }
 * ```
 */
export function statOnWorker(fds: readonly number[]): StatRequest | undefined {
  const s = state;
  if (s === undefined || !s.online || s.dead) return undefined;
  const id = s.nextId++;
  const sizes = new Float64Array(new SharedArrayBuffer(8 * fds.length));
  const done = new Int32Array(new SharedArrayBuffer(8));
  try {
    s.worker.postMessage({ id, fds, sizes, done });
  } catch {
    return undefined;
  }
  return { id, sizes, done, thread: s };
}

/**
 * Whether the thread has answered `req` completely.
 *
 * @example
 * ```ts
 * import { statAnswered } from "./stat_worker.ts";
 * const thread = { dead: false, dropped: new Int32Array([-1]) };
 * const req = { id: 0, sizes: new Float64Array(0), done: new Int32Array([1]), thread };
 * console.log(statAnswered(req)); // true
 * ```
 */
export function statAnswered(req: StatRequest): boolean {
  return Atomics.load(req.done, 0) === 1;
}

/**
 * How many of `req`'s answers, from the first, the thread has written so far: `sizes[i]` is
 * valid for each `i` below it (it was written before the count was raised). A late request
 * is used this far, so no descriptor the thread has already sized is stat'ed twice.
 *
 * @example
 * ```ts
 * import { statsAnsweredSoFar } from "./stat_worker.ts";
 * const thread = { dead: false, dropped: new Int32Array([-1]) };
 * const req = { id: 0, sizes: new Float64Array(3), done: new Int32Array([0, 2]), thread };
 * console.log(statsAnsweredSoFar(req)); // 2
 * ```
 */
export function statsAnsweredSoFar(req: StatRequest): number {
  if (statAnswered(req)) return req.sizes.length;
  return req.done.length > 1 ? Math.min(Atomics.load(req.done, 1), req.sizes.length) : 0;
}

/**
 * Wait up to `ms` for the thread's answer to `req` (blocking this thread), giving up early
 * when the thread is gone or the request was dropped. Only tests wait (see
 * `waitForThreadInTests`); a walk never does.
 *
 * @example
 * ```ts
 * import { awaitStatAnswer } from "./stat_worker.ts";
 * const thread = { dead: false, dropped: new Int32Array([-1]) };
 * const done = new Int32Array(new SharedArrayBuffer(4));
 * console.log(awaitStatAnswer({ id: 0, sizes: new Float64Array(0), done, thread }, 1)); // false
 * ```
 */
export function awaitStatAnswer(req: StatRequest, ms: number): boolean {
  const deadline = Date.now() + ms;
  for (;;) {
    if (statAnswered(req)) return true;
    if (req.thread.dead || Atomics.load(req.thread.dropped, 0) >= req.id) return false;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    Atomics.wait(req.done, 0, 0, Math.min(left, 50));
  }
}

/**
 * Tell the thread that `req`, and every earlier request, is no longer wanted: it skips what
 * it has not done of them.
 *
 * @example
 * ```ts
 * import { dropStatRequest } from "./stat_worker.ts";
 * const thread = { dead: false, dropped: new Int32Array([-1]) };
 * dropStatRequest({ id: 0, sizes: new Float64Array(0), done: new Int32Array(1), thread });
 * ```
 */
export function dropStatRequest(req: StatRequest): void {
  const dropped = req.thread.dropped;
  if (req.id > Atomics.load(dropped, 0)) Atomics.store(dropped, 0, req.id);
}

/**
 * Stop the helper thread (tests call this so nothing outlives them); a later pin starts a
 * new one.
 *
 * @example
 * ```ts
 * import { stopStatWorker } from "./stat_worker.ts";
 * await stopStatWorker();
 * ```
 */
export async function stopStatWorker(): Promise<void> {
  const s = state;
  if (s === undefined) return;
  state = undefined;
  s.dead = true;
  Atomics.store(s.dropped, 0, s.nextId);
  await s.worker.terminate();
}

/**
 * Start the helper thread and wait until it is online (or known unavailable); tests use this
 * to exercise the two-thread path deterministically.
 *
 * @example
 * ```ts
 * import { startStatWorker, stopStatWorker } from "./stat_worker.ts";
 * console.log(await startStatWorker());
 * await stopStatWorker();
 * ```
 */
export async function startStatWorker(): Promise<boolean> {
  statWorkerReady();
  const s = state;
  if (s === undefined) return false;
  if (!s.online) {
    s.worker.ref();
    await new Promise<void>((resolve) => {
      s.worker.once("online", () => resolve());
      s.worker.once("exit", () => resolve());
    });
    s.worker.unref();
  }
  return statWorkerReady();
}

/**
 * Allow or forbid the helper thread (forbidding stops it): tests compare the one-thread and
 * two-thread paths on the same tree.
 *
 * @example
 * ```ts
 * import { allowStatWorker } from "./stat_worker.ts";
 * await allowStatWorker(false);
 * await allowStatWorker(true);
 * ```
 */
export async function allowStatWorker(allow: boolean): Promise<void> {
  allowed = allow;
  if (!allow) await stopStatWorker();
}
