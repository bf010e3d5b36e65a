/**
 * Bounded reads of `/proc` for the limits watchdog: the listing of process ids (never
 * more than {@link MAX_PROC_ENTRIES} entries, however many processes a fork storm made),
 * one process's memory (`statm`) and its children (`task/<tid>/children`).
 *
 * @module
 */

import { opendirSync, readFileSync } from "node:fs";
import { childPids } from "../process/sandbox_init.ts";

/**
 * Most `/proc` entries one listing returns (Linux's own `PID_MAX_LIMIT` is 2^22; a
 * listing past this bound is cut, and the caller treats its view as incomplete).
 *
 * @example
 * ```ts
 * import { MAX_PROC_ENTRIES } from "./proc_scan.ts";
 * MAX_PROC_ENTRIES; // 65536
 * ```
 */
export const MAX_PROC_ENTRIES = 65_536;

/** A listing of process ids and whether it was cut at the bound. */
export interface PidListing {
  /** Process ids found, in directory order. */
  pids: number[];
  /** True when the listing stopped at its bound. */
  cut: boolean;
}

/**
 * List the process ids in `/proc`, at most `max` (default {@link MAX_PROC_ENTRIES}).
 * Never throws: an unreadable `/proc` is an empty listing.
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { listPids } from "./proc_scan.ts";
 * listPids().pids.includes(process.pid); // true on Linux
 * ```
 */
export function listPids(max: number = MAX_PROC_ENTRIES): PidListing {
  const pids: number[] = [];
  let dir;
  try {
    dir = opendirSync("/proc", { bufferSize: 256 });
  } catch {
    return { pids, cut: false };
  }
  try {
    for (let e = dir.readSync(); e !== null; e = dir.readSync()) {
      const c = e.name.charCodeAt(0);
      if (c < 48 || c > 57) continue;
      if (pids.length >= max) return { pids, cut: true };
      pids.push(Number(e.name));
    }
  } catch {
    /* keep what was read */
  } finally {
    dir.closeSync();
  }
  return { pids, cut: false };
}

/**
 * Resident and data-segment pages of `pid` (`/proc/<pid>/statm` fields 2 and 6); zeros
 * when it cannot be read.
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { readStatm } from "./proc_scan.ts";
 * readStatm(process.pid).rss > 0; // true on Linux
 * ```
 */
export function readStatm(pid: number): { rss: number; data: number } {
  try {
    const f = readFileSync(`/proc/${pid}/statm`, "latin1").split(" ");
    return { rss: Number(f[1]) || 0, data: Number(f[5]) || 0 };
  } catch {
    return { rss: 0, data: 0 };
  }
}

/**
 * The children of every thread of `pid` (`/proc/<pid>/task/<tid>/children`); empty when
 * the kernel does not provide the files or the process is gone.
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { childrenOf } from "./proc_scan.ts";
 * Array.isArray(childrenOf(process.pid)); // true
 * ```
 */
export function childrenOf(pid: number): number[] {
  return childPids(pid);
}

/**
 * The most recently created pid (`/proc/loadavg`), or 0 when unknown (callers then
 * assume the counter may have wrapped).
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { lastPid } from "./proc_scan.ts";
 * lastPid() >= process.pid; // true unless the pid counter wrapped
 * ```
 */
export function lastPid(): number {
  try {
    const f = readFileSync("/proc/loadavg", "latin1").trim().split(" ");
    const n = Number(f[f.length - 1]);
    return Number.isInteger(n) ? n : 0;
  } catch {
    return 0;
  }
}
