/**
 * Iterative, sorted, budgeted traversal of a pinned directory. Symlinks are never followed.
 *
 * Order (which decides where the entry limit trips): depth-first pre-order with each
 * directory's names in ascending UTF-8 byte order — a subdirectory's contents are visited
 * right after the subdirectory itself, before its later siblings. Every entry encountered
 * (file, symlink, directory or special file) first checks the entry limit: once `maxEntries`
 * files/symlinks are retained, any further entry fails. Only files and symlinks are
 * retained; directories are only traversed, so they never count.
 *
 * @module
 */

import type { BigIntStats } from "node:fs";
import { lstatSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { specialKind } from "./declared_path.ts";
import { describeFsError, pinFailure, quotePath } from "./failure.ts";
import { yieldToEventLoop } from "./limit.ts";
import type { Settled } from "./limit.ts";
import type { ResolvedPinOptions } from "./options.ts";
import { sortByUtf8 } from "./utf8_order.ts";

/** A retained file or symlink under a pinned directory. */
export interface PinEntry {
  /** POSIX path relative to the pinned directory. */
  rel: string;
  /** Physical path (never put in messages). */
  abs: string;
  /** `f` for a regular file, `l` for a symlink. */
  kind: "f" | "l";
  /** Its `lstat`. */
  stat: BigIntStats;
}

const LSTAT_BATCH = 256;

interface Walk {
  declared: string;
  opts: ResolvedPinOptions;
  entries: PinEntry[];
  bytes: number;
  dirs?: DirEntry[];
}

/** A directory below a pinned directory, with its `lstat` (for identity checks). */
export interface DirEntry {
  /** Physical path (never put in messages). */
  abs: string;
  /** Its `lstat`. */
  stat: BigIntStats;
}

/** One directory being visited: its sorted names, and the current batch's paths and `lstat`s. */
interface Frame {
  abs: string;
  rel: string;
  names: string[];
  next: number;
  batchStart: number;
  batchPaths: string[];
  batch: Settled<BigIntStats>[];
}

/**
 * Collect the files and symlinks under `rootAbs`, enforcing the entry and byte budgets
 * before anything is hashed. Iterative (an explicit stack), so depth cannot overflow the
 * call stack. Throws `PreparationFailed` naming `declared`. When `dirs` is given, every
 * directory below `rootAbs` is appended to it with its `lstat`.
 *
 * @example
 * ```ts
 * import { collectEntries } from "./walk_dir.ts";
 * import { resolvePinOptions } from "./options.ts";
 * const entries = await collectEntries("lib/pins", "lib/pins", resolvePinOptions());
 * console.log(entries.length);
 * ```
 */
export async function collectEntries(
  rootAbs: string,
  declared: string,
  opts: ResolvedPinOptions,
  dirs?: DirEntry[],
): Promise<PinEntry[]> {
  const walk: Walk = { declared, opts, entries: [], bytes: 0, dirs };
  const stack: Frame[] = [await openFrame(walk, rootAbs, "")];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.next >= frame.names.length) {
      stack.pop();
      continue;
    }
    if (frame.next >= frame.batchStart + frame.batch.length) {
      loadBatch(frame);
      await yieldToEventLoop();
    }
    const { child, stat } = nextChild(frame);
    checkEntryLimit(walk);
    if (!stat.ok) {
      throw pinFailure(
        walk.declared,
        describeFsError(stat.error, entryName(walk, child.rel), child.rel),
      );
    }
    if (stat.value.isDirectory()) {
      walk.dirs?.push({ abs: child.abs, stat: stat.value });
      stack.push(await openFrame(walk, child.abs, child.rel));
    } else retain(walk, child, stat.value);
  }
  return walk.entries;
}

async function openFrame(walk: Walk, abs: string, rel: string): Promise<Frame> {
  const names = await readSortedNames(walk, abs, rel);
  return { abs, rel, names, next: 0, batchStart: 0, batchPaths: [], batch: [] };
}

/**
 * `lstat` the frame's next batch of names. Synchronous lstat is several times cheaper than
 * async here; the caller yields to the event loop after each batch.
 */
function loadBatch(frame: Frame): void {
  const start = frame.next;
  frame.batchStart = start;
  frame.batchPaths = frame.names.slice(start, start + LSTAT_BATCH).map((n) => join(frame.abs, n));
  frame.batch = frame.batchPaths.map((abs) => settleSync(() => lstatSync(abs, { bigint: true })));
}

/** The frame's next child and its `lstat` (from the batch loaded by `loadBatch`). */
function nextChild(
  frame: Frame,
): { child: { abs: string; rel: string }; stat: Settled<BigIntStats> } {
  const i = frame.next++;
  const name = frame.names[i];
  const child = {
    abs: frame.batchPaths[i - frame.batchStart],
    rel: frame.rel === "" ? name : `${frame.rel}/${name}`,
  };
  return { child, stat: frame.batch[i - frame.batchStart] };
}

function settleSync<R>(fn: () => R): Settled<R> {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

function checkEntryLimit(walk: Walk): void {
  if (walk.entries.length >= walk.opts.maxEntries) {
    throw pinFailure(
      walk.declared,
      `it holds more than ${walk.opts.maxEntries} entries (${walk.opts.maxEntries} files/symlinks ` +
        "were retained and another entry was found)",
    );
  }
}

function retain(walk: Walk, child: { abs: string; rel: string }, stat: BigIntStats): void {
  if (stat.isSymbolicLink()) {
    walk.entries.push({ ...child, kind: "l", stat });
    return;
  }
  if (!stat.isFile()) {
    const what = entryName(walk, child.rel);
    throw pinFailure(walk.declared, `${what} is a special file (${specialKind(stat)})`);
  }
  const size = Number(stat.size);
  walk.bytes += size;
  if (walk.bytes > walk.opts.maxBytes) {
    throw pinFailure(
      walk.declared,
      `it holds more than ${walk.opts.maxBytes} bytes of file data (the pin limit)`,
    );
  }
  walk.entries.push({ ...child, kind: "f", stat });
}

async function readSortedNames(walk: Walk, abs: string, rel: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(abs);
  } catch (e) {
    const what = rel === "" ? "it" : entryName(walk, rel);
    throw pinFailure(walk.declared, describeFsError(e, what, rel));
  }
  return sortByUtf8(names, (name) => name);
}

function entryName(walk: Walk, rel: string): string {
  return `entry ${quotePath(`${walk.declared}/${rel}`)}`;
}
