/**
 * Ending a sandbox with the same SIGTERM-then-SIGKILL contract as an unconfined group.
 * bwrap forwards no signal, and a SIGTERM of its group would end bwrap itself at once
 * (and with it, by `--die-with-parent`, the namespace's init and everything inside): the
 * tool would never get its grace. So the processes inside the PID namespace are
 * signalled directly, by host pid — every one is a descendant of the namespace's init
 * (orphans inside are re-parented to it, and nothing inside can enter another
 * namespace), and each runs as toolhost's own user, which may signal it. Then, when the
 * sandbox has not ended within the grace, its init is SIGKILLed and the kernel ends
 * everything left inside. The walk is bounded in processes and time: the SIGTERM is a
 * courtesy, the init's SIGKILL is the guarantee.
 *
 * @module
 */

import process from "node:process";
import { isSameProcess, type ProcessRecord, readProcStat } from "./proc_identity.ts";
import { childPids } from "./sandbox_init.ts";

/** A process identified by pid and start time (a pid alone can be reused). */
export interface ProcId {
  /** Host pid. */
  pid: number;
  /** Start time in clock ticks since boot. */
  startTime: number;
}

/** Bounds of one walk of a sandbox's processes. */
export interface WalkBounds {
  /** Most processes listed. Default 4096. */
  maxProcesses?: number;
  /**
   * Most time spent walking `/proc`, in ms. Default 1000: a walk is a few reads, but a
   * loaded machine can deschedule it, and a cut walk leaves processes unwarned.
   */
  budgetMs?: number;
}

function running(p: ProcId): boolean {
  const st = readProcStat(p.pid);
  return st !== null && st.startTime === p.startTime && st.state !== "Z" && st.state !== "X";
}

/**
 * The init of the sandbox led by `leader` (bwrap's child, pid 1 of its PID namespace),
 * while the leader is the recorded process; else undefined.
 *
 * @example
 * ```ts
 * import { sandboxInit } from "./sandbox_end.ts";
 * sandboxInit({ pid: 999999999, pgid: 999999999, startTime: 1, bootId: null }); // undefined
 * ```
 */
export function sandboxInit(leader: ProcessRecord): ProcId | undefined {
  if (!isSameProcess(leader)) return undefined;
  for (const pid of childPids(leader.pid)) {
    const st = readProcStat(pid);
    if (st !== null && st.ppid === leader.pid && pid > 1 && pid !== process.pid) {
      return { pid, startTime: st.startTime };
    }
  }
  return undefined;
}

/**
 * The running processes inside the sandbox whose init is `init` (its descendants, not
 * the init itself), breadth first, within `bounds`. A child counts only while its parent
 * is the process it was found under.
 *
 * @example
 * ```ts
 * import { sandboxMembers } from "./sandbox_end.ts";
 * import process from "node:process";
 * sandboxMembers({ pid: process.pid, startTime: 0 }); // this process's children
 * ```
 */
export function sandboxMembers(init: ProcId, bounds: WalkBounds = {}): ProcId[] {
  const max = bounds.maxProcesses ?? 4096;
  const until = Date.now() + (bounds.budgetMs ?? 1000);
  const out: ProcId[] = [];
  const queue = [init.pid];
  for (let i = 0; i < queue.length && out.length < max && Date.now() < until; i++) {
    const parent = queue[i];
    for (const pid of childPids(parent)) {
      const st = readProcStat(pid);
      if (st === null || st.ppid !== parent || st.startTime < init.startTime) continue;
      if (st.state === "Z" || st.state === "X") continue;
      out.push({ pid, startTime: st.startTime });
      queue.push(pid);
      if (out.length >= max) break;
    }
  }
  return out;
}

/**
 * Send `signal` to every process inside the sandbox of `init` (never to the init: only
 * a SIGKILL reaches it from outside, see {@link endSandbox}). Returns how many were
 * signalled.
 *
 * @example
 * ```ts
 * import { signalSandbox } from "./sandbox_end.ts";
 * signalSandbox({ pid: 999999999, startTime: 1 }, "SIGTERM"); // 0
 * ```
 */
export function signalSandbox(
  init: ProcId,
  signal: NodeJS.Signals,
  bounds?: WalkBounds,
): number {
  let n = 0;
  for (const p of sandboxMembers(init, bounds)) {
    if (p.pid <= 1 || p.pid === process.pid || !running(p)) continue;
    try {
      process.kill(p.pid, signal);
      n++;
    } catch { /* ended meanwhile */ }
  }
  return n;
}

/**
 * Wait until the sandbox of `init` has ended (its init gone or a zombie: the kernel
 * ends everything inside before that), at most `ms`. True when it has.
 *
 * @example
 * ```ts
 * import { waitSandboxEnded } from "./sandbox_end.ts";
 * await waitSandboxEnded({ pid: 999999999, startTime: 1 }, 10); // true
 * ```
 */
export async function waitSandboxEnded(init: ProcId, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  let pause = 2;
  for (;;) {
    if (!running(init)) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((r) => setTimeout(r, Math.min(pause, left)));
    pause = Math.min(pause * 2, 50);
  }
}

/**
 * End the sandbox led by `leader`: SIGTERM every process inside, wait up to `graceMs`
 * for the sandbox to end (it does when its first process exits: bwrap then exits, and
 * its init dies with it), then SIGKILL the init, which takes everything left inside with
 * it. With `graceMs` 0, or nothing inside yet to warn, the init is killed at once.
 * Resolves to whether a SIGTERM was sent. A sandbox whose leader already ended has
 * nothing to warn: its init got bwrap's death signal.
 *
 * @example
 * ```ts
 * import { endSandbox } from "./sandbox_end.ts";
 * await endSandbox({ pid: 999999999, pgid: 999999999, startTime: 1, bootId: null }, 2000); // false
 * ```
 */
export async function endSandbox(leader: ProcessRecord, graceMs: number): Promise<boolean> {
  const init = sandboxInit(leader);
  if (init === undefined) return false;
  const warned = graceMs > 0 && signalSandbox(init, "SIGTERM") > 0;
  if (warned && await waitSandboxEnded(init, graceMs)) return true;
  if (running(init)) {
    try {
      process.kill(init.pid, "SIGKILL");
    } catch { /* ended meanwhile */ }
  }
  return warned;
}
