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
 * what each entry is, and each is checked after it is opened: directories by
 * `tree_dir_frame.ts` (opened `O_DIRECTORY | O_NOFOLLOW`, entries named through
 * `/proc/self/fd/N/`), files and symlinks by `tree_entry.ts` (`O_NOFOLLOW | O_NONBLOCK`, a
 * regular file's `fstat` size charged before it is read, exactly that many bytes read; a
 * symlink's target, never what it leads to). The walk's shared state is `tree_walk.ts`'s.
 *
 * Cost: four syscalls per small file (open, stat, read, close), the floor with these checks.
 * Under Deno `node:fs`'s stat alone is ~10–15 µs of CPU (a `Stats` object per call) of a
 * small file's ~22–28 µs; the CLI and the bench hand lib/ the Deno host's `statSync` instead
 * (`useHostStat` of `host_fs.ts`, ~2 µs), which brings a small file to ~13 µs (10,000 files:
 * 213 → 133 ms of CPU per pin, load ~12 on 2 cores) and leaves the stat thread unused. Without
 * it (Node keeps its own `fstatSync`, ~1–3 µs), past
 * `THREAD_AFTER_ENTRIES` entries (`tree_entry.ts`), with a core idle and the stat thread
 * (`stat_worker.ts`) online, this thread walks and opens while the other stats batches of
 * descriptors (`file_queue.ts`); each file is still finished here in walk order (stat
 * checked, budget charged, bytes read and hashed), a late answer is never waited for (the
 * sizes the thread has written so far are used, the rest stat'ed here), and a failing entry
 * first finishes the files queued before it. Measured (10,000 files, load 5–10 on 2 cores):
 * this thread's run time per pin 280–310 → 195–240 ms, the process's CPU +20–35%.
 * Where the CPU goes (Deno 2.9.6, one thread, ~22 µs a file): about half is the kernel's,
 * mostly the procfs walks of `/proc/self/fd/N/name` (open: ~5 µs against ~2.5 µs by plain
 * path) and of `/proc/self/fd/N` (stat: ~3.5 µs); the rest `node:fs`'s JavaScript, chiefly
 * turning each stat into a `Stats` object (~4–8 µs).
 * Not kept: async `open`/`fstat`/`read` (4–5× the CPU: each op wakes Deno's blocking pool);
 * `crypto.hash` one-shot (the same ~1 µs); `fstatSync` for the stat (~9 µs user + 0.7 µs
 * kernel against ~6 + 3.5: no difference over a pin); `/proc/<readlink /proc/self>/fd`
 * (this process in the mounted procfs's own pid namespace, unlike `process.pid`, but it
 * saves under 1 µs a lookup, lost in the noise over a pin); `readdirSync` of names only (~0.5 µs an entry less, but
 * each entry's type would then take an open or `lstat`); answers posted back as messages (a
 * busy Deno thread yielding with `setImmediate` gets them hundreds of yields late: they are
 * read from shared memory). Also not kept (Deno 2.9.6; user-space instructions per
 * 10,000-file pin by cachegrind, 540–577M between runs of one checkout): a plain-JS SHA-256
 * for files of ≤ 119 bytes (~1.0 against ~1.3–1.6 us a 6-byte file alone, but more
 * instructions per pin, 579M, and 0.98× the CPU in interleaved A/B: within the noise); a
 * reused hash-wasm hasher (1.15 against 1.33 us at 6 bytes, 2.2 against 1.3 at 119, 9.4
 * against 2.6 at 1,000); `crypto.hash` with a `Uint8Array` view (567M against 577M, within
 * the spread); sorting names with the default comparator (~1% of a pin).
 * The floor with these checks, one thread (CPU per file, 10,000 files): open + close by
 * `/proc/<pid>/fd/N/name` ~3 us (2 of it the kernel's), the host's stat of
 * `/proc/<pid>/fd/M` ~2.7, `readSync` ~1.5, `createHash` ~1.1–1.6, the listing ~1.8 and its
 * sort ~0.7 an entry, this module's own bookkeeping ~1–2: ~12–14 us, against ~11–14 us of
 * wall time per file for `find | sort | xargs sha256sum` (2+ processes on 2 cores). A second
 * thread is what is left, and under Deno it cannot share the walk's descriptors: a worker's
 * `readSync`/`fstatSync` of a descriptor the main thread opened fails with `EBADF` (`node:fs`
 * descriptors belong to one isolate), so a worker must open by name itself (through
 * `/proc/<pid>/fd/N/name` of a folder this thread holds), and its `node:fs` stat costs ~9 us
 * (the Deno host's ~1.8 us is not reachable from lib/).
 * Tried (Dec 3) and not kept: a hash thread that, for files this thread had opened, sized
 * and charged, re-opened each through `/proc/<pid>/fd/M` (the very file open on M, no name
 * looked up), read exactly the charged size and hashed it, this thread taking its digest or
 * hashing a late file itself. In a Deno worker (2.9.6) that re-open + read + hash + close
 * costs ~11 us a file and a `node:fs` `fstatSync` ~22 us (so checking dev + ino there costs
 * more than the whole file here). Forced on for 10,000 files (load 4.6–5.4, 3 interleaved
 * process pairs of 4 pins): process CPU 510–780 ms against 240–320 ms on one thread, wall
 * 640–2,070 against 245–1,170 ms; this thread's own CPU did not drop (240–330 against
 * 200–300 ms), the worker took 150–210 ms and V8's GC helper threads 60–160 ms more. What
 * it takes off this thread (a read and a hash, ~3 us) is less than it costs the process,
 * and on a machine without an idle core (`coreToSpare`) it would not run at all.
 *
 * @module
 */

import type { DeclaredTarget } from "./declared_path.ts";
import type { DigestLine } from "./dir_digest.ts";
import { abandonFiles, drainFiles, type FileQueue, finishNextBatch } from "./file_queue.ts";
import { yieldToEventLoop } from "./limit.ts";
import type { ResolvedPinOptions } from "./options.ts";
import { type Frame, openRootFrame, releaseFrame } from "./tree_dir_frame.ts";
import { finishFile, hashLargeFile, visitEntry } from "./tree_entry.ts";
import { newTreeWalk, type TreeWalk } from "./tree_walk.ts";

/** Yield to the event loop after this many entries, or bytes of file data, of sync work. */
const YIELD_EVERY_ENTRIES = 256;
const YIELD_EVERY_BYTES = 8 * 1024 * 1024;

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
  const walk: TreeWalk = newTreeWalk(
    declared,
    opts,
    (file, size) => finishFile(walk, file, size),
  );
  const stack: Frame[] = [];
  try {
    stack.push(openRootFrame(walk, target));
    await walkFrames(walk, stack, pause);
    if (walk.queue !== undefined) await drainYielding(walk, walk.queue, pause);
  } catch (e) {
    // A file queued before the failing entry fails first (walk order), as without a queue.
    if (walk.queue !== undefined) drainFiles(walk.queue, walk.finish);
    throw e;
  } finally {
    if (walk.queue !== undefined) abandonFiles(walk.queue);
    for (const frame of stack) releaseFrame(walk, frame);
  }
  for (const file of walk.large) file.line.digest = await hashLargeFile(walk, file);
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
      releaseFrame(walk, frame);
      stack.pop();
      continue;
    }
    const child = visitEntry(walk, frame, frame.entries[frame.next++]);
    // The parent's descriptor is no longer needed once its last entry is opened.
    if (frame.next >= frame.entries.length) releaseFrame(walk, frame);
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
