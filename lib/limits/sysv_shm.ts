/**
 * System V shared memory (`shmget`) a tool made: a segment filled through a mapping and
 * detached is held by the kernel, in no process's resident set and behind no descriptor,
 * for as long as nobody removes it — so in `rlimit` mode a tool under `max_memory_mb = 50`
 * could hold gigabytes in segments and pass as a few MiB (cgroup mode charges them to the
 * call's group already).
 *
 * `/proc/sysvipc/shm` lists every segment of this IPC namespace with its creator's pid
 * (`cpid`), the pid that last attached or detached it (`lpid`: filling one takes an
 * attach) and the bytes it holds (`rss` + `swap`). A segment is the call's once it is
 * seen with a creator or last attacher that is, or was, one of the call's processes (the
 * tracker's members, and those that ended while it followed them — a process gone by the
 * time the table is read still names its segment); from then on it counts until it is
 * removed. A pid the call no longer has could be handed to another process that makes a
 * segment of its own: that one is charged to the call too (counted more, never less).
 *
 * Not counted: a segment whose creator and every process that attached it each lived and
 * ended between two looks of the tracker (~10 ms apart), never seen as the tool's — as for
 * CPU time, the tracker cannot name a process it never saw; cgroup mode charges it. A
 * confined tool's segments live in its sandbox's own IPC namespace, which this table does
 * not show: namespace_shm.ts reads that one from inside it.
 *
 * @module
 */

import { readFileSync } from "node:fs";

/** One segment of the table. */
export interface ShmSegment {
  /** Its identity: `shmid` and creator pid (an id the kernel hands out again has another). */
  id: string;
  /** The creator's pid. */
  cpid: number;
  /** The pid of the last attach or detach (0: none yet). */
  lpid: number;
  /** Bytes it holds: resident plus swapped (its size where the kernel gives neither). */
  bytes: number;
}

/** Most pids of ended members remembered as possible creators. */
export const MAX_REMEMBERED_PIDS = 8192;

/**
 * The segments of a `/proc/sysvipc/shm` text (its header names the columns); none when
 * it has no `shmid` or `cpid` column.
 *
 * @example
 * ```ts
 * import { parseSysvShm } from "./sysv_shm.ts";
 * parseSysvShm("key shmid perms size cpid rss swap\n0 7 600 4096 42 4096 0\n");
 * // [{ id: "7:42", cpid: 42, lpid: 0, bytes: 4096 }]
 * ```
 */
export function parseSysvShm(text: string): ShmSegment[] {
  const lines = text.split("\n");
  const head = lines[0].trim().split(/\s+/);
  const col = (name: string) => head.indexOf(name);
  const [shmid, cpid, lpid, size, rss, swap] = ["shmid", "cpid", "lpid", "size", "rss", "swap"]
    .map(col);
  if (shmid < 0 || cpid < 0) return [];
  const out: ShmSegment[] = [];
  for (const line of lines.slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < head.length) continue;
    const held = rss >= 0 ? Number(f[rss]) + (swap >= 0 ? Number(f[swap]) : 0) : Number(f[size]);
    const last = lpid >= 0 ? Number(f[lpid]) : 0;
    out.push({ id: `${f[shmid]}:${f[cpid]}`, cpid: Number(f[cpid]), lpid: last, bytes: held || 0 });
  }
  return out;
}

/** The segments of this IPC namespace; none where there is no table (no System V IPC). */
function readTable(path: string): ShmSegment[] {
  try {
    return parseSysvShm(readFileSync(path, "latin1"));
  } catch {
    return [];
  }
}

/**
 * The segments one call made, and the bytes they hold (see the module documentation).
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { ShmCharges } from "./sysv_shm.ts";
 * const shm = new ShmCharges();
 * shm.charge([process.pid]); // 0 unless this process made a segment
 * ```
 */
export class ShmCharges {
  readonly #path: string;
  /** Segments claimed, by id. */
  readonly #owned = new Set<string>();
  /** Pids of ended members (insertion order: oldest first). */
  readonly #gone = new Set<number>();

  /** Read the table at `path` (default `/proc/sysvipc/shm`). */
  constructor(path = "/proc/sysvipc/shm") {
    this.#path = path;
  }

  /** A member ended: its segments are still the call's. */
  remember(pid: number): void {
    this.#gone.delete(pid);
    this.#gone.add(pid);
    for (const oldest of this.#gone) {
      if (this.#gone.size <= MAX_REMEMBERED_PIDS) break;
      this.#gone.delete(oldest);
    }
  }

  /**
   * The bytes the call's segments hold now: those claimed before that still exist, and
   * those made or last attached by one of `members` or a remembered pid (claimed from now
   * on).
   */
  charge(members: Iterable<number>): number {
    const live = new Set(members);
    const present = new Set<string>();
    let bytes = 0;
    for (const s of readTable(this.#path)) {
      present.add(s.id);
      if (!this.#owned.has(s.id)) {
        const ours = (pid: number) => live.has(pid) || this.#gone.has(pid);
        if (!ours(s.cpid) && !ours(s.lpid)) continue;
        this.#owned.add(s.id);
      }
      bytes += s.bytes;
    }
    for (const id of this.#owned) if (!present.has(id)) this.#owned.delete(id);
    return bytes;
  }
}
