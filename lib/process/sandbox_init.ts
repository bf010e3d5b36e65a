/**
 * Ending a sandbox (lib/sandbox) by its PID namespace: the group leader is `bwrap`, its
 * child is the namespace's init, and when that init dies the kernel kills every process
 * in the namespace — `setsid`, double forks and pid-hopping included — before the init
 * can be reaped. So SIGKILL of the init, once the leader has reaped it, proves nothing
 * of the sandbox still runs. Also the interface by which a sandbox reaches a spawn.
 *
 * @module
 */

import process from "node:process";
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
 * SIGKILL the PID-namespace init of the sandbox led by `leader` (its direct children,
 * checked to still be children of this very leader). Returns how many were signalled.
 *
 * @example
 * ```ts
 * import { killSandboxInit } from "./sandbox_init.ts";
 * import { recordProcess } from "./proc_identity.ts";
 * import process from "node:process";
 * // killSandboxInit(recordProcess(bwrapPid));
 * ```
 */
export function killSandboxInit(leader: ProcessRecord): number {
  if (!isSameProcess(leader)) return 0;
  let n = 0;
  for (const pid of childPids(leader.pid)) {
    const st = readProcStat(pid);
    if (st === null || st.ppid !== leader.pid || pid <= 1 || pid === process.pid) continue;
    try {
      process.kill(pid, "SIGKILL");
      n++;
    } catch { /* gone */ }
  }
  return n;
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
