/**
 * The digest lines of a pinned directory in one pass: each entry is hashed as the walk
 * meets it, so no `lstat` object is made per file and nothing is read twice.
 *
 * Order and budgets are `walk_dir.ts`'s (depth-first pre-order, names in UTF-8 byte order;
 * every entry met first checks the entry limit; file sizes are summed against the byte
 * limit before a byte of that file is read). Files of more than `SMALL_FILE_BYTES` are
 * hashed after the walk, so an over-budget tree fails before any large file is read.
 *
 * Nothing is followed. A directory's listing (`readdir`'s entry types, no `stat`) says
 * what each entry is, and each is checked after it is opened:
 * - a directory is opened with `O_DIRECTORY | O_NOFOLLOW` (the pinned directory's device
 *   and inode must be those `resolveDeclaredPath` saw), and on Linux its entries are named
 *   through `/proc/self/fd/N/` — inside the directory that was opened, even if a component
 *   of its path is swapped for a symlink meanwhile;
 * - a file is opened with `O_NOFOLLOW | O_NONBLOCK` and must `fstat` as a regular file (under
 *   Deno a `stat` of `/proc/self/fd/N`: the same answer for less per-call cost, see
 *   `statOpen`); its size is the one budgeted, and exactly that many bytes must be read;
 * - a symlink contributes its target (`readlink`), never what it leads to.
 *
 * Cost: four syscalls per small file (open, stat, read, close), the floor with these checks;
 * under Deno the stat alone is ~10–13 µs of a small file's ~25–30 µs. So past
 * `THREAD_AFTER_ENTRIES` entries, with a core idle and the stat thread (`stat_worker.ts`)
 * online, this thread walks and opens while the other stats batches of descriptors
 * (`file_queue.ts`); each file is still finished here in walk order (stat checked, budget
 * charged, bytes read and hashed), a late answer is never waited for, and a failing entry
 * first finishes the files queued before it. Measured (10,000 files, load 5–10 on 2 cores):
 * this thread's run time per pin 280–310 → 195–240 ms, the process's CPU +20–35%.
 * Not kept: async `open`/`fstat`/`read` (2–5× the CPU: each op wakes Deno's blocking pool);
 * `crypto.hash` one-shot (the same ~1 µs); `/proc/<pid>/fd` (unsafe in another pid
 * namespace); answers posted back as messages (a busy Deno thread yielding with
 * `setImmediate` gets them hundreds of yields late: they are read from shared memory).
 *
 * @module
 */

import type { BigIntStats, Dirent } from "node:fs";
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync } from "node:fs";
import { readlinkSync } from "node:fs";
import type { DeclaredTarget } from "./declared_path.ts";
import { specialKind } from "./declared_path.ts";
import { type DigestLine, symlinkDigest } from "./dir_digest.ts";
import { describeFsError, isPinFailure, pinFailure, quotePath } from "./failure.ts";
import {
  abandonFiles,
  drainFiles,
  enqueueFile,
  type FileQueue,
  finishNextBatch,
  newFileQueue,
  type OpenFile,
  queuedFiles,
  STAT_HERE,
  threadWanted,
} from "./file_queue.ts";
import { FileChanged, hashOpenSmallFile, hashRegularFile, SMALL_FILE_BYTES } from "./hash_file.ts";
import { yieldToEventLoop } from "./limit.ts";
import type { ResolvedPinOptions } from "./options.ts";
import { descriptorPath, statOpen } from "./proc_fd.ts";
import { statWorkerReady } from "./stat_worker.ts";
import { sortByUtf8 } from "./utf8_order.ts";

const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) |
  (constants.O_NOFOLLOW ?? 0);
const FILE_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NONBLOCK ?? 0);

/**
 * Most directory descriptors one walk holds at once. A directory deeper than this many
 * unfinished ones is listed through its descriptor but its entries are opened by path (as
 * without procfs); a chain of single subdirectories holds one descriptor, not one per level.
 */
const MAX_HELD_DIRS = 64;

/** Yield to the event loop after this many entries, or bytes of file data, of sync work. */
const YIELD_EVERY_ENTRIES = 256;
const YIELD_EVERY_BYTES = 8 * 1024 * 1024;

/**
 * Once a walk has met this many files and symlinks it sizes the rest on the stat thread
 * (`stat_worker.ts`, started then if need be): below it a second thread costs more than it
 * saves.
 */
const THREAD_AFTER_ENTRIES = 512;

/** A directory being visited: its sorted entries and how to name them. */
interface Frame {
  /** Physical path (never put in messages). */
  abs: string;
  /** Prefix its entries are opened by: `/proc/self/fd/N` while `fd` is held, else `abs`. */
  base: string;
  /** The held descriptor, or -1. */
  fd: number;
  rel: string;
  entries: Dirent[];
  next: number;
}

/** A file hashed after the walk: its path and the `fstat` it must still match. */
interface LargeFile {
  line: DigestLine;
  abs: string;
  stat: BigIntStats;
}

interface TreeWalk {
  declared: string;
  opts: ResolvedPinOptions;
  lines: DigestLine[];
  large: LargeFile[];
  bytes: number;
  held: number;
  sinceYieldEntries: number;
  sinceYieldBytes: number;
  /** Whether this walk uses the stat thread (decided when it grows large). */
  thread?: boolean;
  /** Files opened but not yet finished, once the stat thread is in use. */
  queue?: FileQueue;
  /** `finishFile` bound to this walk. */
  finish: (file: OpenFile, size: number) => void;
}

/**
 * Walk and hash the directory `target` (declared as `declared`), returning one digest line
 * per file and symlink. Throws `PreparationFailed` naming `declared` (never a physical path).
 * `pause` is awaited between bursts of synchronous work (default: yield to the event loop;
 * tests pass one that changes the tree mid-walk).
 *
 * @example
 * ```ts
 * import { resolveDeclaredPath } from "./declared_path.ts";
 * import { directoryDigest } from "./dir_digest.ts";
 * import { resolvePinOptions } from "./options.ts";
 * import { treeDigestLines } from "./tree_pin.ts";
 * const target = await resolveDeclaredPath(".", "lib/pins");
 * const lines = await treeDigestLines(target, "lib/pins", resolvePinOptions());
 * console.log(directoryDigest(lines).length); // 64
 * ```
 */
export async function treeDigestLines(
  target: DeclaredTarget,
  declared: string,
  opts: ResolvedPinOptions,
  pause: () => Promise<void> = yieldToEventLoop,
): Promise<DigestLine[]> {
  const walk: TreeWalk = {
    declared,
    opts,
    lines: [],
    large: [],
    bytes: 0,
    held: 0,
    sinceYieldEntries: 0,
    sinceYieldBytes: 0,
    finish: (file, size) => finishFile(walk, file, size),
  };
  const stack: Frame[] = [];
  try {
    stack.push(openRoot(walk, target));
    await walkFrames(walk, stack, pause);
    if (walk.queue !== undefined) await drainYielding(walk, walk.queue, pause);
  } catch (e) {
    // A file queued before the failing entry fails first (walk order), as without a queue.
    if (walk.queue !== undefined) drainFiles(walk.queue, walk.finish);
    throw e;
  } finally {
    if (walk.queue !== undefined) abandonFiles(walk.queue);
    for (const frame of stack) release(walk, frame);
  }
  for (const file of walk.large) file.line.digest = await hashLarge(walk, file);
  return walk.lines;
}

async function walkFrames(
  walk: TreeWalk,
  stack: Frame[],
  pause: () => Promise<void>,
): Promise<void> {
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.next >= frame.entries.length) {
      release(walk, frame);
      stack.pop();
      continue;
    }
    const child = visit(walk, frame, frame.entries[frame.next++]);
    // The parent's descriptor is no longer needed once its last entry is opened.
    if (frame.next >= frame.entries.length) release(walk, frame);
    if (child !== undefined) stack.push(child);
    if (
      ++walk.sinceYieldEntries >= YIELD_EVERY_ENTRIES || walk.sinceYieldBytes >= YIELD_EVERY_BYTES
    ) {
      walk.sinceYieldEntries = 0;
      walk.sinceYieldBytes = 0;
      await pause();
    }
  }
}

/**
 * Finish the files still queued after the walk, yielding every `YIELD_EVERY_BYTES` as the
 * walk does: the queue can hold ~250 small files, up to 64 MiB to read and hash.
 */
async function drainYielding(
  walk: TreeWalk,
  queue: FileQueue,
  pause: () => Promise<void>,
): Promise<void> {
  while (finishNextBatch(queue, walk.finish)) {
    if (walk.sinceYieldBytes >= YIELD_EVERY_BYTES) {
      walk.sinceYieldEntries = 0;
      walk.sinceYieldBytes = 0;
      await pause();
    }
  }
}

function openRoot(walk: TreeWalk, target: DeclaredTarget): Frame {
  return openDir(walk, target.abs, target.abs, "", "it", target.stat);
}

/**
 * Open the directory named `path` (no symlink followed) and list it through the opened
 * descriptor where procfs allows; keep the descriptor while fewer than `MAX_HELD_DIRS` are.
 */
function openDir(
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
    throw pinFailure(walk.declared, notADirectory(path, what) ?? describeFsError(e, what));
  }
  const base = descriptorPath(fd);
  let entries: Dirent[];
  try {
    if (expected !== undefined) sameDirectory(walk, fd, expected, what);
    entries = freeingQueued(walk, () => readdirSync(base ?? abs, { withFileTypes: true }));
  } catch (e) {
    closeSync(fd);
    throw isPinFailure(e) ? e : pinFailure(walk.declared, describeFsError(e, what));
  }
  sortByUtf8(entries, (d) => d.name);
  if (base === undefined || walk.held >= MAX_HELD_DIRS) {
    closeSync(fd);
    return { abs, base: abs, fd: -1, rel, entries, next: 0 };
  }
  walk.held++;
  return { abs, base, fd, rel, entries, next: 0 };
}

/** Throw unless the directory open on `fd` is the one `expected` describes (device, inode). */
function sameDirectory(walk: TreeWalk, fd: number, expected: BigIntStats, what: string): void {
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

function release(walk: TreeWalk, frame: Frame): void {
  if (frame.fd < 0) return;
  closeSync(frame.fd);
  frame.fd = -1;
  frame.base = frame.abs;
  walk.held--;
}

/** Check the entry limit for `entry`, then pin it (a directory: the frame to visit next). */
function visit(walk: TreeWalk, frame: Frame, entry: Dirent): Frame | undefined {
  if (walk.lines.length >= walk.opts.maxEntries) {
    throw pinFailure(
      walk.declared,
      `it holds more than ${walk.opts.maxEntries} entries (${walk.opts.maxEntries} files/symlinks ` +
        "were retained and another entry was found)",
    );
  }
  const name = entry.name;
  const rel = frame.rel === "" ? name : `${frame.rel}/${name}`;
  const path = `${frame.base}/${name}`;
  const abs = `${frame.abs}/${name}`;
  if (entry.isDirectory()) return openDir(walk, path, abs, rel, entryName(walk, rel));
  if (entry.isFile()) fileLine(walk, path, abs, rel);
  else if (entry.isSymbolicLink()) linkLine(walk, path, rel);
  else throw special(walk, path, rel);
  return undefined;
}

/**
 * Open a file and count its line; finish it now, or queue it for the stat thread once the
 * walk is large enough and the thread is online.
 */
function fileLine(walk: TreeWalk, path: string, abs: string, rel: string): void {
  if (walk.queue === undefined && walk.lines.length >= THREAD_AFTER_ENTRIES) {
    // Decided once per walk: a busy machine has no core to give the thread.
    walk.thread ??= threadWanted();
    if (walk.thread && statWorkerReady()) walk.queue = newFileQueue();
  }
  const fd = openFile(walk, path, rel);
  const line: DigestLine = { rel, kind: "f", digest: "" };
  walk.lines.push(line);
  const file: OpenFile = { rel, abs, fd, line };
  if (walk.queue !== undefined) return enqueueFile(walk.queue, file, walk.finish);
  try {
    finishFile(walk, file, STAT_HERE);
  } finally {
    closeSync(fd);
  }
}

/** Open a file without following a symlink (see {@linkcode freeingQueued}). */
function openFile(walk: TreeWalk, path: string, rel: string): number {
  try {
    return freeingQueued(walk, () => openSync(path, FILE_FLAGS));
  } catch (e) {
    throw entryFailure(walk, rel, e);
  }
}

/**
 * Run `open` (which needs a descriptor). Out of descriptors while files are queued, finish
 * those first (closing theirs; an earlier file's failure wins, as in walk order) and try once
 * more, so the queue's descriptors never change the outcome: a directory's open and listing
 * need one as much as a file's open.
 */
function freeingQueued<T>(walk: TreeWalk, open: () => T): T {
  try {
    return open();
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    const outOfFds = code === "EMFILE" || code === "ENFILE";
    if (!outOfFds || walk.queue === undefined || queuedFiles(walk.queue) === 0) throw e;
  }
  drainFiles(walk.queue, walk.finish);
  return open();
}

/**
 * Check an opened file (a regular file; its size within the byte budget) and hash it, or set
 * it aside when large. `size` is the stat thread's answer (-1: not a regular file), or
 * `STAT_HERE` to stat it on this thread. Does not close the descriptor.
 */
function finishFile(walk: TreeWalk, file: OpenFile, answer: number): void {
  try {
    const size = answer === STAT_HERE ? sizeHere(file.fd) : answer;
    if (size < 0) {
      throw pinFailure(walk.declared, `${entryName(walk, file.rel)} is no longer a regular file`);
    }
    walk.bytes += size;
    if (walk.bytes > walk.opts.maxBytes) {
      throw pinFailure(
        walk.declared,
        `it holds more than ${walk.opts.maxBytes} bytes of file data (the pin limit)`,
      );
    }
    if (size > SMALL_FILE_BYTES) {
      // The stat kept is the one the large file must match when hashed: it must show the
      // size just charged, or a file that grew since it was sized (on the stat thread,
      // maybe batches and a yield ago) would be read whole past the byte budget.
      const stat = fstatSync(file.fd, { bigint: true });
      if (!stat.isFile() || stat.size !== BigInt(size)) {
        throw new FileChanged("changed while it was being pinned");
      }
      walk.large.push({ line: file.line, abs: file.abs, stat });
      return;
    }
    file.line.digest = hashOpenSmallFile(file.fd, size);
    walk.sinceYieldBytes += size;
  } catch (e) {
    throw entryFailure(walk, file.rel, e);
  }
}

/** The size of the regular file open on `fd`, or -1 when it is not a regular file. */
function sizeHere(fd: number): number {
  const st = statOpen(fd);
  return st.isFile() ? Number(st.size) : -1;
}

function linkLine(walk: TreeWalk, path: string, rel: string): void {
  let digest: string;
  try {
    digest = symlinkDigest(readlinkSync(path, { encoding: "buffer" }));
  } catch (e) {
    throw entryFailure(walk, rel, e);
  }
  walk.lines.push({ rel, kind: "l", digest });
}

/** The failure for an entry that is neither file, directory nor symlink. */
function special(walk: TreeWalk, path: string, rel: string): unknown {
  let st: BigIntStats;
  try {
    st = lstatSync(path, { bigint: true });
  } catch (e) {
    return entryFailure(walk, rel, e);
  }
  return pinFailure(
    walk.declared,
    `${entryName(walk, rel)} is a special file (${specialKind(st)})`,
  );
}

/** A large file, reopened by path: it must still be the file (device, inode, size) walked. */
async function hashLarge(walk: TreeWalk, file: LargeFile): Promise<string> {
  try {
    return await hashRegularFile(file.abs, file.stat);
  } catch (e) {
    throw entryFailure(walk, file.line.rel, e);
  }
}

function entryFailure(walk: TreeWalk, rel: string, e: unknown): unknown {
  if (isPinFailure(e)) return e;
  const what = entryName(walk, rel);
  if (e instanceof FileChanged) return pinFailure(walk.declared, `${what} ${e.message}`);
  return pinFailure(walk.declared, describeFsError(e, what));
}

function entryName(walk: TreeWalk, rel: string): string {
  return `entry ${quotePath(`${walk.declared}/${rel}`)}`;
}
