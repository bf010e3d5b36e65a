/**
 * Files a directory walk has opened but not yet checked and hashed, in walk order, while the
 * stat thread (`stat_worker.ts`) sizes them in batches.
 *
 * Each file is finished (its stat checked, the budget charged, its bytes hashed) strictly in
 * walk order on the caller's thread, so the first failure in walk order is the one thrown
 * and a budget is charged before a byte of its file is read, exactly as without a queue. The
 * queue owns every descriptor in it: it closes each once its file is finished, and all the
 * rest when a file fails or the walk is abandoned. An answer from the thread is used only
 * while the descriptors it describes are still held.
 *
 * @module
 */

import { closeSync } from "node:fs";
import type { DigestLine } from "./dir_digest.ts";
import { hostStatInUse } from "./host_fs.ts";
import type { StatRequest } from "./stat_worker.ts";
import {
  awaitStatAnswer,
  coreToSpare,
  dropStatRequest,
  statAnswered,
  statOnWorker,
  statsAnsweredSoFar,
  statWorkerReady,
} from "./stat_worker.ts";

/** Files sized per request to the stat thread. */
export const QUEUE_BATCH = 64;

/** Batches sent ahead before the oldest is finished (bounds the descriptors held). */
const QUEUE_DEPTH = 3;

/** Size answer: the stat failed on the thread (or no thread); re-stat on this one. */
export const STAT_HERE = -2;

/** A file opened by the walk, waiting to be finished. */
export interface OpenFile {
  /** POSIX path relative to the pinned directory. */
  rel: string;
  /** Physical path (never put in messages). */
  abs: string;
  /** The open descriptor (owned by the queue). */
  fd: number;
  /** Its digest line (already counted by the walk; the digest is filled in when finished). */
  line: DigestLine;
}

/**
 * Finish one file: `size` is its size from the thread, -1 when it is not a regular file, or
 * {@linkcode STAT_HERE}. Throws the file's failure.
 */
export type FinishFile = (file: OpenFile, size: number) => void;

interface Batch {
  files: OpenFile[];
  /** The thread's request, when it was asked. */
  request: StatRequest | undefined;
}

const NO_SIZES = new Float64Array(0);

let threadAnswers = 0;
/** How long a walk waits for a late answer: 0 (never) except in tests. */
let patienceMs = 0;

/**
 * Whether a walk that has grown large should use the stat thread: when a core looks idle
 * (`coreToSpare`) and no host `stat` is set (`useHostStat` of `host_fs.ts`: with one, a
 * stat costs this thread ~2–3 us, less than queueing it, while the thread's `node:fs` stat
 * costs ~8–15 us), or always in tests that wait for it.
 *
 * @example
 * ```ts
 * import { threadWanted } from "./file_queue.ts";
 * console.log(typeof threadWanted()); // "boolean"
 * ```
 */
export function threadWanted(): boolean {
  return patienceMs > 0 || (!hostStatInUse() && coreToSpare());
}

/**
 * Make walks wait up to `ms` for the stat thread's answer instead of sizing a late batch
 * themselves (0 restores the default): tests use it so the two-thread path runs whatever the
 * machine's load. Never set outside tests.
 *
 * @example
 * ```ts
 * import { waitForThreadInTests } from "./file_queue.ts";
 * waitForThreadInTests(10_000);
 * waitForThreadInTests(0);
 * ```
 */
export function waitForThreadInTests(ms: number): void {
  patienceMs = ms;
}

/**
 * How many batches, in this process so far, were sized by the stat thread (tests check that
 * the two-thread path ran).
 *
 * @example
 * ```ts
 * import { batchesSizedByThread } from "./file_queue.ts";
 * console.log(batchesSizedByThread() >= 0); // true
 * ```
 */
export function batchesSizedByThread(): number {
  return threadAnswers;
}

/** Opened files in walk order, in batches. */
export interface FileQueue {
  batches: Batch[];
  current: OpenFile[];
}

/**
 * A new, empty queue.
 *
 * @example
 * ```ts
 * import { newFileQueue, queuedFiles } from "./file_queue.ts";
 * console.log(queuedFiles(newFileQueue())); // 0
 * ```
 */
export function newFileQueue(): FileQueue {
  return { batches: [], current: [] };
}

/**
 * How many files the queue holds (each holding a descriptor).
 *
 * @example
 * ```ts
 * import { newFileQueue, queuedFiles } from "./file_queue.ts";
 * console.log(queuedFiles(newFileQueue())); // 0
 * ```
 */
export function queuedFiles(q: FileQueue): number {
  let n = q.current.length;
  for (const b of q.batches) n += b.files.length;
  return n;
}

/**
 * Add an opened file (the queue now owns `file.fd`). A full batch is sent to the stat
 * thread; once more than the queue's depth are in flight, the oldest is finished.
 *
 * @example
 * ```ts
 * import { openSync } from "node:fs";
 * import { drainFiles, enqueueFile, newFileQueue } from "./file_queue.ts";
 * const q = newFileQueue();
 * const line = { rel: "deno.json", kind: "f" as const, digest: "" };
 * const fd = openSync("deno.json", "r");
 * enqueueFile(q, { rel: "deno.json", abs: "deno.json", fd, line }, () => {});
 * drainFiles(q, () => {});
 * ```
 */
export function enqueueFile(q: FileQueue, file: OpenFile, finish: FinishFile): void {
  q.current.push(file);
  if (q.current.length < QUEUE_BATCH) return;
  submit(q);
  while (q.batches.length > QUEUE_DEPTH) finishOldest(q, finish);
}

/**
 * Finish every queued file in walk order. On the first failure, every descriptor still
 * queued is closed and that failure is thrown; the queue is left empty either way.
 *
 * @example
 * ```ts
 * import { drainFiles, newFileQueue } from "./file_queue.ts";
 * drainFiles(newFileQueue(), () => {});
 * ```
 */
export function drainFiles(q: FileQueue, finish: FinishFile): void {
  submit(q);
  while (q.batches.length > 0) finishOldest(q, finish);
}

/**
 * Finish the oldest batch of queued files (sending the files not yet sent first), in walk
 * order; false once the queue is empty. A failure is thrown as by {@linkcode drainFiles}.
 * A caller that yields between batches keeps a long drain from holding its thread.
 *
 * @example
 * ```ts
 * import { finishNextBatch, newFileQueue } from "./file_queue.ts";
 * console.log(finishNextBatch(newFileQueue(), () => {})); // false
 * ```
 */
export function finishNextBatch(q: FileQueue, finish: FinishFile): boolean {
  submit(q);
  if (q.batches.length === 0) return false;
  finishOldest(q, finish);
  return true;
}

/**
 * Close every queued descriptor without finishing its file (the thread is told to skip
 * what it has not done; an answer is never read).
 *
 * @example
 * ```ts
 * import { abandonFiles, newFileQueue } from "./file_queue.ts";
 * abandonFiles(newFileQueue());
 * ```
 */
export function abandonFiles(q: FileQueue): void {
  const batches = q.batches;
  q.batches = [];
  const current = q.current;
  q.current = [];
  for (const b of batches) {
    if (b.request !== undefined) dropStatRequest(b.request);
    closeAll(b.files);
  }
  closeAll(current);
}

function submit(q: FileQueue): void {
  if (q.current.length === 0) return;
  const files = q.current;
  q.current = [];
  const request = statWorkerReady() ? statOnWorker(files.map((f) => f.fd)) : undefined;
  q.batches.push({ files, request });
}

/**
 * Finish the oldest batch, with the thread's answer when it is complete. One still missing
 * is not waited for (the thread is behind, or not getting a core): it is dropped, the answers
 * it already has are used and this thread stats the rest of the batch itself.
 */
function finishOldest(q: FileQueue, finish: FinishFile): void {
  const batch = q.batches.shift()!;
  const req = batch.request;
  const answered = req !== undefined &&
    (statAnswered(req) || (patienceMs > 0 && awaitStatAnswer(req, patienceMs)));
  if (req !== undefined && !answered) dropStatRequest(req);
  if (answered) threadAnswers++;
  // Read once, after the drop: answers below it were written while every descriptor was held.
  const sizes = req === undefined ? NO_SIZES : req.sizes.subarray(0, statsAnsweredSoFar(req));
  try {
    for (let i = 0; i < batch.files.length; i++) {
      finish(batch.files[i], i < sizes.length ? sizes[i] : STAT_HERE);
    }
  } catch (e) {
    closeAll(batch.files);
    abandonFiles(q);
    throw e;
  }
  closeAll(batch.files);
}

function closeAll(files: readonly OpenFile[]): void {
  for (const f of files) closeSync(f.fd);
}
