/**
 * A sandbox (lib/sandbox) seen from its spawn: the group leader is `bwrap`, its child is
 * the namespace's init, and when that init dies the kernel kills every process in the
 * namespace — `setsid`, double forks and pid-hopping included — before the init can be
 * reaped (sandbox_end.ts ends it so). Also the interface by which a sandbox reaches a
 * spawn.
 *
 * @module
 */

import { readdirSync, readFileSync } from "node:fs";
import { isSameProcess, type ProcessRecord, readProcStat } from "./proc_identity.ts";

/** How a spawn is confined: rewrites the command line (lib/sandbox implements it). */
export interface Confine {
  /**
   * The program and argv that run `command` confined, with `cwd` as its working
   * directory and `writable` (this run's output/tmp dirs) writable inside.
   */
  wrap(
    command: string,
    args: readonly string[],
    cwd: string,
    writable: readonly string[],
  ): { command: string; args: string[] };
}

/**
 * Host PIDs of the children of `pid` (for a sandbox leader: its namespace's init).
 *
 * @example
 * ```ts
 * import { childPids } from "./sandbox_init.ts";
 * import process from "node:process";
 * childPids(process.pid); // [] when nothing was spawned
 * ```
 */
export function childPids(pid: number): number[] {
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
