/**
 * The state of one directory pin's walk (`tree_pin.ts`), and what every step of it shares:
 * how an entry is named in a failure, and how an open that ran out of descriptors first
 * frees the ones the file queue holds.
 *
 * @module
 */

import type { BigIntStats } from "node:fs";
import type { DigestLine } from "./dir_digest.ts";
import { describeFsError, isPinFailure, pinFailure, quotePath } from "./failure.ts";
import { drainFiles, type FileQueue, type FinishFile, queuedFiles } from "./file_queue.ts";
import { FileChanged } from "./hash_file.ts";
import type { ResolvedPinOptions } from "./options.ts";

/** A file hashed after the walk: its path and the `fstat` it must still match. */
export interface LargeFile {
  /** Its digest line (counted; the digest is filled in once hashed). */
  line: DigestLine;
  /** Physical path (never put in messages). */
  abs: string;
  /** The `fstat` taken when it was sized: device, inode and size must still match. */
  stat: BigIntStats;
}

/** One walk's state; budgets, order and failures are decided on the walking thread only. */
export interface TreeWalk {
  /** The declared path, the only path failures name. */
  declared: string;
  opts: ResolvedPinOptions;
  /** One line per file and symlink, in walk order. */
  lines: DigestLine[];
  /** Files over `SMALL_FILE_BYTES`, hashed after the walk. */
  large: LargeFile[];
  /** Bytes of file data charged so far against `opts.maxBytes`. */
  bytes: number;
  /** Directory descriptors held (see `MAX_HELD_DIRS` in `tree_dir_frame.ts`). */
  held: number;
  sinceYieldEntries: number;
  sinceYieldBytes: number;
  /** Whether this walk uses the stat thread (decided when it grows large). */
  thread?: boolean;
  /** Files opened but not yet finished, once the stat thread is in use. */
  queue?: FileQueue;
  /** Finishes one opened file (`finishFile` of `tree_entry.ts`, bound to this walk). */
  finish: FinishFile;
}

/**
 * A new walk of the directory declared as `declared`, nothing counted yet; `finish` finishes
 * the files its queue hands back.
 *
 * @example
 * ```ts
 * import { resolvePinOptions } from "./options.ts";
 * import { newTreeWalk } from "./tree_walk.ts";
 * const walk = newTreeWalk("lib/pins", resolvePinOptions(), () => {});
 * console.log(walk.lines.length); // 0
 * ```
 */
export function newTreeWalk(
  declared: string,
  opts: ResolvedPinOptions,
  finish: FinishFile,
): TreeWalk {
  return {
    declared,
    opts,
    lines: [],
    large: [],
    bytes: 0,
    held: 0,
    sinceYieldEntries: 0,
    sinceYieldBytes: 0,
    finish,
  };
}

/**
 * How a failure names the entry at `rel`: under the declared path, quoted.
 *
 * @example
 * ```ts
 * import { resolvePinOptions } from "./options.ts";
 * import { entryName, newTreeWalk } from "./tree_walk.ts";
 * const walk = newTreeWalk("tools", resolvePinOptions(), () => {});
 * console.log(entryName(walk, "bin/run")); // entry "tools/bin/run"
 * ```
 */
export function entryName(walk: TreeWalk, rel: string): string {
  return `entry ${quotePath(`${walk.declared}/${rel}`)}`;
}

/**
 * The pin failure for entry `rel` from `e`: a pin failure as it is, a {@linkcode FileChanged}
 * with the entry's name before its reason, any other error described (never a physical path).
 *
 * @example
 * ```ts
 * import { FileChanged } from "./hash_file.ts";
 * import { resolvePinOptions } from "./options.ts";
 * import { entryFailure, newTreeWalk } from "./tree_walk.ts";
 * const walk = newTreeWalk("tools", resolvePinOptions(), () => {});
 * console.log(entryFailure(walk, "a.sh", new FileChanged("grew while it was being pinned")));
 * ```
 */
export function entryFailure(walk: TreeWalk, rel: string, e: unknown): unknown {
  if (isPinFailure(e)) return e;
  const what = entryName(walk, rel);
  if (e instanceof FileChanged) return pinFailure(walk.declared, `${what} ${e.message}`);
  return pinFailure(walk.declared, describeFsError(e, what, rel));
}

/**
 * Run `open` (which needs a descriptor). Out of descriptors while files are queued, finish
 * those first (closing theirs; an earlier file's failure wins, as in walk order) and try once
 * more, so the queue's descriptors never change the outcome: a directory's open and listing
 * need one as much as a file's open.
 *
 * @example
 * ```ts
 * import { closeSync, openSync } from "node:fs";
 * import { resolvePinOptions } from "./options.ts";
 * import { freeingQueued, newTreeWalk } from "./tree_walk.ts";
 * const walk = newTreeWalk("lib/pins", resolvePinOptions(), () => {});
 * closeSync(freeingQueued(walk, () => openSync("deno.json", "r")));
 * ```
 */
export function freeingQueued<T>(walk: TreeWalk, open: () => T): T {
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
