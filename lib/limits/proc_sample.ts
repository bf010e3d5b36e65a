/**
 * Sampling one process group through `/proc` cheaply enough to do every few tens of
 * milliseconds: the group's known members are followed down their children lists
 * (`/proc/<pid>/task/<tid>/children`), and the whole of `/proc` is rescanned only every
 * few samples to pick up members that were re-parented away (orphans). A process that
 * leaves the group (`setsid`, `setpgid`) leaves the sample too.
 *
 * @module
 */

import { parseProcStat, type ProcStat } from "../process/proc_identity.ts";
import { readdirSync, readFileSync } from "node:fs";
import { scanGroup } from "../process/proc_identity.ts";

/** One sample of a group. */
export interface GroupSample {
  /** Running (non-zombie) members. */
  processes: number;
  /** Sum of resident memory over running members, bytes. */
  rssBytes: number;
  /** Largest data segment (private writable memory, what RLIMIT_DATA limits) of one member, bytes. */
  maxDataBytes: number;
  /** CPU seconds of running members, their reaped children included. */
  cpuSeconds: number;
}

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ: 100 on Linux). */
const USER_HZ = 100;
/** Rescan the whole of `/proc` every this many samples. */
const RESCAN_EVERY = 10;
/**
 * Most processes one sample visits (a fork bomb must not stall the event loop).
 *
 * @example
 * ```ts
 * import { MAX_SAMPLE_VISITS } from "./proc_sample.ts";
 * MAX_SAMPLE_VISITS; // 8192
 * ```
 */
export const MAX_SAMPLE_VISITS = 8192;

let pageSize: number | undefined;

/**
 * The kernel page size, derived once from this process's `/proc/self/status` and
 * `/proc/self/statm` (4096 when they cannot be read).
 *
 * @example
 * ```ts
 * import { systemPageSize } from "./proc_sample.ts";
 * systemPageSize(); // 4096 on x86-64
 * ```
 */
export function systemPageSize(): number {
  if (pageSize !== undefined) return pageSize;
  pageSize = 4096;
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync("/proc/self/status", "latin1"))?.[1]);
    const pages = Number(readFileSync("/proc/self/statm", "latin1").split(" ")[1]);
    const ratio = (kb * 1024) / pages;
    const best = [4096, 16384, 65536].reduce((a, b) =>
      Math.abs(b - ratio) < Math.abs(a - ratio) ? b : a
    );
    if (Number.isFinite(ratio)) pageSize = best;
  } catch { /* keep 4096 */ }
  return pageSize;
}

function readStat(pid: number): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "latin1"));
  } catch {
    return null;
  }
}

function readStatm(pid: number): { rss: number; data: number } {
  try {
    const f = readFileSync(`/proc/${pid}/statm`, "latin1").split(" ");
    return { rss: Number(f[1]) || 0, data: Number(f[5]) || 0 };
  } catch {
    return { rss: 0, data: 0 };
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, "latin1").trim();
      if (text !== "") { for (const c of text.split(" ")) out.push(Number(c)); }
    } catch { /* thread ended */ }
  }
  return out;
}

/**
 * Samples one process group (see the module documentation).
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { GroupSampler } from "./proc_sample.ts";
 * const s = new GroupSampler(process.pid, process.pid);
 * s.sample().processes; // ≥ 0
 * ```
 */
export class GroupSampler {
  readonly #pgid: number;
  readonly #known = new Map<number, number>();
  #samples = 0;

  /** Sample group `pgid`, starting from its leader `leader`. */
  constructor(pgid: number, leader: number) {
    this.#pgid = pgid;
    this.#known.set(leader, -1);
  }

  /**
   * Take one sample. It stops early — with `processes` past the bound — once more than
   * `stopAbove` running processes (default {@link MAX_SAMPLE_VISITS}) were seen, so a
   * fork bomb cannot keep the walk going.
   */
  sample(stopAbove: number = MAX_SAMPLE_VISITS): GroupSample {
    const bound = Math.min(stopAbove, MAX_SAMPLE_VISITS);
    // Not on the first sample: a group just spawned has no re-parented members yet.
    if (this.#samples++ % RESCAN_EVERY === RESCAN_EVERY - 1) {
      for (const p of scanGroup(this.#pgid)) {
        if (!this.#known.has(p.pid)) this.#known.set(p.pid, p.startTime);
      }
    }
    const page = systemPageSize();
    const out: GroupSample = { processes: 0, rssBytes: 0, maxDataBytes: 0, cpuSeconds: 0 };
    let ticks = 0;
    const queue = [...this.#known.keys()];
    for (let i = 0; i < queue.length; i++) {
      const pid = queue[i];
      const st = readStat(pid);
      const start = this.#known.get(pid)!;
      if (st === null || st.pgrp !== this.#pgid || (start >= 0 && st.startTime !== start)) {
        this.#known.delete(pid);
        continue;
      }
      this.#known.set(pid, st.startTime);
      if (st.state === "Z" || st.state === "X") continue;
      if (++out.processes > bound) break;
      ticks += st.ticks;
      const m = readStatm(pid);
      out.rssBytes += m.rss * page;
      out.maxDataBytes = Math.max(out.maxDataBytes, m.data * page);
      for (const c of childrenOf(pid)) {
        if (!this.#known.has(c)) {
          this.#known.set(c, -1);
          queue.push(c);
        }
      }
    }
    out.cpuSeconds = ticks / USER_HZ;
    return out;
  }
}
