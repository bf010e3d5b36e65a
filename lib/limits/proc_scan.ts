/**
 * Bounded reads of `/proc` for the limits watchdog: the listing of process ids (within
 * the entry and time budgets of proc_budget.ts, however many processes a fork storm made),
 * one process's memory (`statm`) and its children (`task/<tid>/children`).
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { DEFAULT_SCAN_ENTRIES, type ScanBudget, scanPids } from "../process/proc_budget.ts";
import { childPidsBounded } from "../process/sandbox_init.ts";

/**
 * Most `/proc` entries one listing reads (the shared default of proc_budget.ts; Linux's
 * own `PID_MAX_LIMIT` is 2^22): a listing past this bound is cut, and the caller treats
 * its view as incomplete.
 *
 * @example
 * ```ts
 * import { MAX_PROC_ENTRIES } from "./proc_scan.ts";
 * MAX_PROC_ENTRIES; // 65536
 * ```
 */
export const MAX_PROC_ENTRIES: number = DEFAULT_SCAN_ENTRIES;

/** A listing of process ids and whether it was cut at a budget. */
export interface PidListing {
  /** Process ids found, in directory order. */
  pids: number[];
  /** True when the listing stopped at its entry or time budget. */
  cut: boolean;
}

/**
 * List the process ids in `/proc` within `budget` (proc_budget.ts defaults: at most
 * {@link MAX_PROC_ENTRIES} entries). Never throws: an unreadable `/proc` is an empty
 * listing.
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { listPids } from "./proc_scan.ts";
 * listPids().pids.includes(process.pid); // true on Linux
 * ```
 */
export function listPids(budget: ScanBudget = {}): PidListing {
  const pids: number[] = [];
  const { complete } = scanPids((pid) => {
    pids.push(pid);
  }, budget);
  return { pids, cut: !complete };
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
 * The children of every thread of `pid` (`/proc/<pid>/task/<tid>/children`), and whether
 * every thread was read (a process with more threads than the bound, or one slower than
 * the time budget, is cut); empty when the kernel does not provide the files or the
 * process is gone.
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { childrenOf } from "./proc_scan.ts";
 * childrenOf(process.pid).complete; // true
 * ```
 */
export function childrenOf(pid: number): { pids: number[]; complete: boolean } {
  return childPidsBounded(pid);
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
