/**
 * Signalling and terminating a recorded process group without ever signalling a group
 * that is not ours.
 *
 * Why this is safe. The leader was started with `setsid`, so it leads both a new session
 * and a new process group, both numbered `pgid`, and every process that ever joins that
 * group is a descendant in session `pgid` (a group never spans sessions). Linux does not
 * hand out a number while any process still uses it as a pid, process-group id or
 * session id (zombies included). Hence:
 *
 * 1. Leader alive with the recorded start time (and same boot): the group is ours (a
 *    session leader cannot change its group) → signal `-pgid`.
 * 2. `/proc/<pid>` exists with another start time: the number was freed and reused, which
 *    required our group to be empty → nothing of ours remains; never signal.
 * 3. Leader gone: the group lives on only through its members, which keep the number
 *    reserved. Processes in group `pgid` are treated as ours only if every one of them is
 *    in session `pgid` and started no earlier than the recorded leader. A group re-created
 *    on a reused number by `setpgid` (shell job control, the usual way) sits in another
 *    session and is refused. The residual risk — the whole group died, the pid counter
 *    wrapped all the way around, and a new process took exactly this number *and* called
 *    `setsid` — needs `pid_max` forks between two checks; in-call cleanup runs within
 *    milliseconds of the leader's exit. A record from another boot never matches.
 *
 * @module
 */

import { existsSync } from "node:fs";
import process from "node:process";
import {
  currentBootId,
  liveGroupMembers,
  type ProcessRecord,
  type ProcStat,
  readProcStat,
  scanGroup,
} from "./proc_identity.ts";

/** Whether a recorded group is still ours, and which of its processes still run. */
export interface GroupInspection {
  /** True when processes of the recorded group (ours) may still exist. */
  ours: boolean;
  /** Running (non-zombie) members of our group; empty when `ours` is false. */
  live: ProcStat[];
}

/** Result of {@linkcode signalGroup}. */
export type SignalOutcome = "signalled" | "gone" | "denied";

function groupIsAbsent(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return false;
  } catch (e) {
    return (e as { code?: string }).code === "ESRCH";
  }
}

let procAvailable: boolean | undefined;

/** Without /proc (not Linux) identities cannot be checked: fall back to kill(-pgid, 0). */
function inspectWithoutProc(record: ProcessRecord): GroupInspection {
  if (groupIsAbsent(record.pgid)) return { ours: false, live: [] };
  const unknown = { pid: record.pgid, state: "?", ppid: 0, pgrp: record.pgid, sid: record.pgid };
  return { ours: true, live: [{ ...unknown, startTime: 0, ticks: 0 }] };
}

/** Leader present: ours only if it is the recorded process (or, start time unknown, a
 * leader of its own session and group). */
function leaderIsOurs(record: ProcessRecord, leader: ProcStat): boolean {
  if (leader.pgrp !== record.pgid) return false;
  if (record.startTime === null) return leader.sid === record.pgid;
  return leader.startTime === record.startTime;
}

/**
 * Decide whether `record`'s group is still ours and list its running members
 * (see the module documentation for the rules).
 *
 * @example
 * ```ts
 * import { inspectGroup } from "./kill_group.ts";
 * const r = inspectGroup({ pid: 999999999, pgid: 999999999, startTime: 1, bootId: null });
 * console.log(r.ours); // false
 * ```
 */
export function inspectGroup(record: ProcessRecord): GroupInspection {
  procAvailable ??= existsSync("/proc/self/stat");
  if (!procAvailable) return inspectWithoutProc(record);
  const none = { ours: false, live: [] };
  if (record.bootId !== null && record.bootId !== currentBootId()) return none;
  const leader = readProcStat(record.pid);
  if (leader !== null) {
    return leaderIsOurs(record, leader)
      ? { ours: true, live: liveGroupMembers(record.pgid) }
      : none;
  }
  if (groupIsAbsent(record.pgid)) return none;
  const members = scanGroup(record.pgid);
  const foreign = members.some((p) =>
    p.sid !== record.pgid || (record.startTime !== null && p.startTime < record.startTime)
  );
  if (foreign || members.length === 0) return none;
  return { ours: true, live: members.filter((p) => p.state !== "Z" && p.state !== "X") };
}

/**
 * Send `signal` to the recorded group after checking it is still ours. Returns `gone`
 * when nothing of ours runs any more, `denied` when the kernel refused (EPERM).
 *
 * @example
 * ```ts
 * import { signalGroup } from "./kill_group.ts";
 * signalGroup({ pid: 999999999, pgid: 999999999, startTime: 1, bootId: null }, "SIGTERM"); // "gone"
 * ```
 */
export function signalGroup(record: ProcessRecord, signal: NodeJS.Signals): SignalOutcome {
  const { ours, live } = inspectGroup(record);
  if (!ours || live.length === 0) return "gone";
  try {
    process.kill(-record.pgid, signal);
    return "signalled";
  } catch (e) {
    return (e as { code?: string }).code === "EPERM" ? "denied" : "gone";
  }
}

/** Options of {@linkcode terminateGroup}. */
export interface TerminateOptions {
  /** Time between SIGTERM and SIGKILL, in ms. Default 2000. */
  graceMs?: number;
  /** How long to keep sending SIGKILL before giving up, in ms. Default 5000. */
  killBoundMs?: number;
}

/** Result of {@linkcode terminateGroup}. */
export interface TerminateReport {
  /** True when no running process of the group remains (confirmed via `/proc`). */
  confirmed: boolean;
  /** True when at least one signal was sent. */
  signalled: boolean;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Poll until the group has no running member or `ms` elapsed; true when empty.
 *
 * @example
 * ```ts
 * import { waitGroupEmpty } from "./kill_group.ts";
 * await waitGroupEmpty({ pid: 999999999, pgid: 999999999, startTime: 1, bootId: null }, 10); // true
 * ```
 */
export async function waitGroupEmpty(record: ProcessRecord, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  let pause = 2;
  for (;;) {
    const { ours, live } = inspectGroup(record);
    if (!ours || live.length === 0) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await sleep(Math.min(pause, left));
    pause = Math.min(pause * 2, 50);
  }
}

/**
 * End the whole recorded group: SIGTERM, wait up to `graceMs`, then SIGKILL repeatedly
 * (bounded by `killBoundMs`) until `/proc` shows no running member. Safe to call when the
 * group is already gone or when the leader exited long ago (identity rules above).
 *
 * @example
 * ```ts
 * import { terminateGroup } from "./kill_group.ts";
 * const rep = await terminateGroup({ pid: 999999999, pgid: 999999999, startTime: 1, bootId: null });
 * console.log(rep.confirmed); // true
 * ```
 */
export async function terminateGroup(
  record: ProcessRecord,
  options: TerminateOptions = {},
): Promise<TerminateReport> {
  const graceMs = options.graceMs ?? 2000;
  const killBoundMs = options.killBoundMs ?? 5000;
  const first = signalGroup(record, "SIGTERM");
  if (first === "gone") return { confirmed: true, signalled: false };
  if (await waitGroupEmpty(record, graceMs)) return { confirmed: true, signalled: true };
  const deadline = Date.now() + killBoundMs;
  while (Date.now() < deadline) {
    if (signalGroup(record, "SIGKILL") === "gone") return { confirmed: true, signalled: true };
    if (await waitGroupEmpty(record, 100)) return { confirmed: true, signalled: true };
  }
  return { confirmed: await waitGroupEmpty(record, 0), signalled: true };
}
