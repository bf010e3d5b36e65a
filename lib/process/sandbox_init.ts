/**
 * A sandbox (lib/sandbox) seen from its spawn: the group leader is `bwrap`, its child is
 * the namespace's init, and when that init dies the kernel kills every process in the
 * namespace — `setsid`, double forks and pid-hopping included — before the init can be
 * reaped (sandbox_end.ts ends it so). Also the interface by which a sandbox reaches a
 * spawn.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import type { HeldFds } from "./bind_fds.ts";
import { type ScanBudget, scanPids } from "./proc_budget.ts";
import { isSameProcess, type ProcessRecord, readProcStat } from "./proc_identity.ts";

/** How a spawn is confined: rewrites the command line (lib/sandbox implements it). */
export interface Confine {
  /**
   * The program and argv that run `command` confined, with `cwd` as its working
   * directory and `writable` (this run's output/tmp dirs) writable inside, and the
   * descriptors its bind mounts are made from (bind_fds.ts): the spawn passes them as
   * its fds from `BIND_FD_BASE`, and the caller closes them once it has spawned (or
   * not). With `key`, nothing is opened or checked: a command line to compare by, never
   * to spawn.
   */
  wrap(
    command: string,
    args: readonly string[],
    cwd: string,
    writable: readonly string[],
    key?: boolean,
  ): { command: string; args: string[]; binds?: HeldFds };
  /**
   * Called once the runs are over (a call's process ended; a session's harness between
   * and after its calls): an error text when a run created what it may not (a missing
   * trust anchor, which lib/sandbox then moved aside), else undefined.
   */
  settle?(): string | undefined;
}

/**
 * Most threads of one process whose children are read (a tool may start thousands of
 * threads; past this bound the listing is cut and {@linkcode childPidsBounded} says so).
 *
 * @example
 * ```ts
 * import { MAX_TASKS } from "./sandbox_init.ts";
 * MAX_TASKS; // 4096
 * ```
 */
export const MAX_TASKS = 4096;

/**
 * Host PIDs of the children of `pid` (for a sandbox leader: its namespace's init), from
 * at most `budget.maxEntries` of its threads (default {@link MAX_TASKS}) within
 * `budget.maxMs` (proc_budget.ts default); `complete` is false when a budget cut it.
 *
 * @example
 * ```ts
 * import { childPidsBounded } from "./sandbox_init.ts";
 * import process from "node:process";
 * childPidsBounded(process.pid).complete; // true
 * ```
 */
export function childPidsBounded(
  pid: number,
  budget: ScanBudget = {},
): { pids: number[]; complete: boolean } {
  const pids: number[] = [];
  const { complete, cut } = scanPids((tid) => {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, "latin1").trim();
      if (text !== "") { for (const c of text.split(" ")) pids.push(Number(c)); }
    } catch { /* thread ended */ }
  }, { maxEntries: MAX_TASKS, ...budget, dir: `/proc/${pid}/task` });
  // A listing that broke off without a budget running out lost its folder: the process
  // ended under it (the kernel then hands its children to a reaper, where the tracker's
  // scan finds them). Only a live process's listing cut short hides children.
  if (!complete && cut === undefined && ended(pid)) return { pids, complete: true };
  return { pids, complete };
}

/** Whether `pid` is gone or a zombie (its threads, and so its children, are no more). */
function ended(pid: number): boolean {
  const st = readProcStat(pid);
  return st === null || st.state === "Z" || st.state === "X";
}

/**
 * Host PIDs of the children of `pid` ({@linkcode childPidsBounded}'s, whole or not).
 *
 * @example
 * ```ts
 * import { childPids } from "./sandbox_init.ts";
 * import process from "node:process";
 * childPids(process.pid); // [] when nothing was spawned
 * ```
 */
export function childPids(pid: number): number[] {
  return childPidsBounded(pid).pids;
}

/**
 * The namespace init's host PID of the sandbox led by `leader`, or undefined.
 *
 * @example
 * ```ts
 * import { sandboxInitPid } from "./sandbox_init.ts";
 * // sandboxInitPid(record) → 12345
 * ```
 */
export function sandboxInitPid(leader: ProcessRecord): number | undefined {
  if (!isSameProcess(leader)) return undefined;
  return childPids(leader.pid).find((pid) => readProcStat(pid)?.ppid === leader.pid);
}
