/**
 * Memory a process holds in files rather than in its address space: a `memfd` (an
 * anonymous memory file, `memfd_create`) or a POSIX shared-memory object (`/dev/shm/…`,
 * `shm_open`) that it filled with `write(2)` and keeps open. Those pages are shared
 * memory in the kernel, charged to a cgroup but never part of any process's resident set
 * while they are not mapped: without this count, a tool under `max_memory_mb = 50` in
 * `rlimit` mode could hold gigabytes in memfds and pass as a few MiB.
 *
 * {@link heldFileBytes} lists `/proc/<pid>/fd` (at most {@link MAX_FDS} entries), reads
 * each link, and for a memfd or a file under `/dev/shm` adds the blocks the file has
 * allocated (`st_blocks`, so a sparse file counts what it holds, not its size) — once per
 * file (device and inode), however many descriptors or processes hold it. A listing it
 * may not read (a process made itself non-dumpable) or one cut at the bound is not
 * `complete`: the caller cannot measure the tool and fails closed.
 *
 * @module
 */

import { opendirSync, readlinkSync, statSync } from "node:fs";

/**
 * Most descriptors read from one process's `/proc/<pid>/fd`; a process holding more
 * cannot be measured.
 *
 * @example
 * ```ts
 * import { MAX_FDS } from "./held_files.ts";
 * MAX_FDS; // 4096
 * ```
 */
export const MAX_FDS = 4096;

/** What {@link heldFileBytes} found. */
export interface HeldFiles {
  /** Allocated bytes of memory files first seen in this process. */
  bytes: number;
  /** Every descriptor was read (false: unreadable listing or cut at the bound). */
  complete: boolean;
}

/** A descriptor's target that is memory, not disk: a memfd or a POSIX shm object. */
function isMemoryFile(target: string): boolean {
  return target.startsWith("/memfd:") || target.startsWith("/dev/shm/");
}

/** Whether an error says the listing is there but closed to us (not: the process ended). */
function denied(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return code === "EACCES" || code === "EPERM";
}

/**
 * The memory `pid` holds in open memory files (see the module documentation), counting
 * only files whose `dev:ino` is not in `seen` yet (it adds them). A process that is gone
 * holds nothing: `{ bytes: 0, complete: true }`.
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { heldFileBytes } from "./held_files.ts";
 * heldFileBytes(process.pid, new Set()).complete; // true
 * ```
 */
export function heldFileBytes(pid: number, seen: Set<string>, maxFds = MAX_FDS): HeldFiles {
  let dir;
  try {
    dir = opendirSync(`/proc/${pid}/fd`, { bufferSize: 256 });
  } catch (e) {
    return { bytes: 0, complete: !denied(e) };
  }
  let bytes = 0;
  let entries = 0;
  try {
    for (let e = dir.readSync(); e !== null; e = dir.readSync()) {
      if (++entries > maxFds) return { bytes, complete: false };
      bytes += fileBytes(`/proc/${pid}/fd/${e.name}`, seen);
    }
  } catch (e) {
    // The listing broke off: the process ended (nothing held), or it is closed to us.
    return { bytes, complete: !denied(e) };
  } finally {
    dir.closeSync();
  }
  return { bytes, complete: true };
}

/** The allocated bytes of the memory file behind one descriptor link, when first seen. */
function fileBytes(link: string, seen: Set<string>): number {
  try {
    if (!isMemoryFile(readlinkSync(link))) return 0;
    const st = statSync(link);
    const id = `${st.dev}:${st.ino}`;
    if (!st.isFile() || seen.has(id)) return 0;
    seen.add(id);
    return st.blocks * 512;
  } catch {
    return 0; // closed meanwhile
  }
}
