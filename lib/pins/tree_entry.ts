/**
 * One entry of a directory pin's walk (`tree_pin.ts`), as `readdir`'s entry type says it is,
 * each checked after it is opened:
 * - a file is opened with `O_NOFOLLOW | O_NONBLOCK` and must `fstat` as a regular file (under
 *   Deno a `stat` of `/proc/self/fd/N`, by the host's own `stat` where the entry set one: the
 *   same answer for less per-call cost, see `openFileSize`); its size is the one charged to the byte budget before a byte of it is read,
 *   and exactly that many bytes must be read. Past `THREAD_AFTER_ENTRIES` entries, with a core
 *   idle and the stat thread online, it is queued (`file_queue.ts`) to be finished in walk
 *   order with the thread's answer; a file over `SMALL_FILE_BYTES` is hashed after the walk;
 * - a directory becomes the next frame to visit (`tree_dir_frame.ts`);
 * - a symlink contributes its target (`readlink`), never what it leads to;
 * - anything else fails the pin as a special file.
 *
 * @module
 */

import type { BigIntStats } from "node:fs";
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync } from "node:fs";
import { specialKind } from "./declared_path.ts";
import { type DigestLine, symlinkDigest } from "./dir_digest.ts";
import type { ListedEntry } from "./host_fs.ts";
import { pinFailure } from "./failure.ts";
import { enqueueFile, newFileQueue, type OpenFile, STAT_HERE, threadWanted } from "./file_queue.ts";
import { FileChanged, hashOpenSmallFile, hashRegularFile, SMALL_FILE_BYTES } from "./hash_file.ts";
import { openFileSize } from "./proc_fd.ts";
import { statWorkerReady } from "./stat_worker.ts";
import { atFrame, type Frame, openDirFrame } from "./tree_dir_frame.ts";
import {
  entryFailure,
  entryName,
  freeingQueued,
  type LargeFile,
  type TreeWalk,
} from "./tree_walk.ts";

const FILE_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NONBLOCK ?? 0);

/**
 * Once a walk has met this many files and symlinks it sizes the rest on the stat thread
 * (`stat_worker.ts`, started then if need be): below it a second thread costs more than it
 * saves.
 */
const THREAD_AFTER_ENTRIES = 512;

/**
 * Check the entry limit for `entry` of `frame`, then pin it: a directory is returned as the
 * frame to visit next; a file or symlink gets its digest line.
 *
 * @example
 * ```ts
 * import { resolveDeclaredPath } from "./declared_path.ts";
 * import { resolvePinOptions } from "./options.ts";
 * import { openRootFrame, releaseFrame } from "./tree_dir_frame.ts";
 * import { finishFile, visitEntry } from "./tree_entry.ts";
 * import { newTreeWalk } from "./tree_walk.ts";
 * const walk = newTreeWalk("lib/pins", resolvePinOptions(), (f, s) => finishFile(walk, f, s));
 * const frame = openRootFrame(walk, await resolveDeclaredPath(".", "lib/pins"));
 * visitEntry(walk, frame, frame.entries[0]);
 * releaseFrame(walk, frame);
 * console.log(walk.lines[0].digest.length); // 64
 * ```
 */
export function visitEntry(walk: TreeWalk, frame: Frame, entry: ListedEntry): Frame | undefined {
  if (walk.lines.length >= walk.opts.maxEntries) {
    throw pinFailure(
      walk.declared,
      `it holds more than ${walk.opts.maxEntries} entries (${walk.opts.maxEntries} files/symlinks ` +
        "were retained and another entry was found)",
    );
  }
  const name = entry.name;
  const rel = frame.rel === "" ? name : `${frame.rel}/${name}`;
  const abs = `${frame.abs}/${name}`;
  if (frame.fd >= 0 || frame.id === undefined) return visitAt(walk, frame.base, entry, rel, abs);
  return atFrame(walk, frame, (base) => visitAt(walk, base, entry, rel, abs));
}

/** Pin `entry` (at `rel`, physical path `abs`), opened as `<base>/<its name>`. */
function visitAt(
  walk: TreeWalk,
  base: string,
  entry: ListedEntry,
  rel: string,
  abs: string,
): Frame | undefined {
  const path = `${base}/${entry.name}`;
  if (entry.isDirectory) return openDirFrame(walk, path, abs, rel, entryName(walk, rel));
  if (entry.isFile) fileLine(walk, path, abs, rel);
  else if (entry.isSymlink) linkLine(walk, path, rel);
  else throw special(walk, path, rel);
  return undefined;
}

/**
 * Check an opened file (a regular file; its size within the byte budget) and hash it, or set
 * it aside when large. `answer` is the stat thread's size (-1: not a regular file), or
 * `STAT_HERE` to stat it on this thread. Does not close the descriptor.
 *
 * @example
 * ```ts
 * import { closeSync, openSync } from "node:fs";
 * import { STAT_HERE } from "./file_queue.ts";
 * import { resolvePinOptions } from "./options.ts";
 * import { finishFile } from "./tree_entry.ts";
 * import { newTreeWalk } from "./tree_walk.ts";
 * const walk = newTreeWalk(".", resolvePinOptions(), () => {});
 * const line = { rel: "deno.json", kind: "f" as const, digest: "" };
 * const fd = openSync("deno.json", "r");
 * finishFile(walk, { rel: "deno.json", abs: "deno.json", fd, line }, STAT_HERE);
 * closeSync(fd);
 * console.log(line.digest.length); // 64
 * ```
 */
export function finishFile(walk: TreeWalk, file: OpenFile, answer: number): void {
  try {
    const size = answer === STAT_HERE ? openFileSize(file.fd) : answer;
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

/**
 * Hash a file set aside by {@linkcode finishFile}, reopened by path: it must still be the
 * file (device, inode, size) walked.
 *
 * @example
 * ```ts
 * import { lstatSync } from "node:fs";
 * import { resolvePinOptions } from "./options.ts";
 * import { hashLargeFile } from "./tree_entry.ts";
 * import { newTreeWalk } from "./tree_walk.ts";
 * const walk = newTreeWalk(".", resolvePinOptions(), () => {});
 * const line = { rel: "deno.json", kind: "f" as const, digest: "" };
 * const stat = lstatSync("deno.json", { bigint: true });
 * console.log((await hashLargeFile(walk, { line, abs: "deno.json", stat })).length); // 64
 * ```
 */
export async function hashLargeFile(walk: TreeWalk, file: LargeFile): Promise<string> {
  try {
    return await hashRegularFile(file.abs, file.stat);
  } catch (e) {
    throw entryFailure(walk, file.line.rel, e);
  }
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

/** Open a file without following a symlink (see `freeingQueued`). */
function openFile(walk: TreeWalk, path: string, rel: string): number {
  try {
    return freeingQueued(walk, () => openSync(path, FILE_FLAGS));
  } catch (e) {
    throw entryFailure(walk, rel, e);
  }
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
