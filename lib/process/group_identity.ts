/**
 * Whether a recorded process group is still ours, and which of its processes run: the
 * identity rules of kill_group.ts's module documentation, applied to one record, and the
 * structural guard every signal passes first ({@linkcode isSignallable}).
 *
 * @module
 */

import { existsSync } from "node:fs";
import process from "node:process";
import {
  currentBootId,
  liveGroupMembers,
  PID_MAX,
  type ProcessRecord,
  type ProcStat,
  readProcStat,
  scanGroup,
} from "./proc_identity.ts";
import type { ScanBudget } from "./proc_budget.ts";

/** Whether a recorded group is still ours, and which of its processes still run. */
export interface GroupInspection {
  /** True when processes of the recorded group (ours) may still exist. */
  ours: boolean;
  /** Running (non-zombie) members of our group; empty when `ours` is false. */
  live: ProcStat[];
  /**
   * False when the `/proc` scan ran out of its budget (proc_budget.ts): the view is
   * partial. A partial view never counts as "empty" or "gone" — the group is unconfirmed.
   */
  complete: boolean;
}

/**
 * Whether no process at all is in group `pgid` (`kill(-pgid, 0)` answers ESRCH).
 *
 * @example
 * ```ts
 * import { groupIsAbsent } from "./group_identity.ts";
 * groupIsAbsent(999999999); // true
 * ```
 */
export function groupIsAbsent(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return false;
  } catch (e) {
    return (e as { code?: string }).code === "ESRCH";
  }
}

let procAvailable: boolean | undefined;

/**
 * Whether `/proc` is there to check identities with (read once).
 *
 * @example
 * ```ts
 * import { hasProc } from "./group_identity.ts";
 * hasProc(); // true on Linux
 * ```
 */
export function hasProc(): boolean {
  return (procAvailable ??= existsSync("/proc/self/stat"));
}

let ownGroups: { pgrp: number; sid: number } | undefined;

/** This process's group and session (never ours to signal), read once. */
function ownGroupAndSession(): { pgrp: number; sid: number } {
  if (ownGroups === undefined) {
    const me = readProcStat(process.pid);
    ownGroups = { pgrp: me?.pgrp ?? process.pid, sid: me?.sid ?? process.pid };
  }
  return ownGroups;
}

/**
 * The structural guard every signal passes first: a pid toolhost could have spawned as a
 * session leader — an integer in 2..`PID_MAX`, equal to the pgid, and neither this process
 * nor its own group or session. `kill(-0)` would hit our own group and `kill(-1)` every
 * process we may signal, so those can never get through.
 *
 * @example
 * ```ts
 * import { isSignallable } from "./group_identity.ts";
 * isSignallable({ pid: 1, pgid: 1, startTime: 5, bootId: null }); // false
 * ```
 */
export function isSignallable(record: ProcessRecord): boolean {
  const { pid, pgid } = record;
  if (!Number.isSafeInteger(pid) || pid < 2 || pid > PID_MAX || pgid !== pid) return false;
  if (pid === process.pid) return false;
  const own = ownGroupAndSession();
  return pgid !== own.pgrp && pgid !== own.sid;
}

/** Without /proc (not Linux) identities cannot be checked: fall back to kill(-pgid, 0).
 * Only for records this process made itself (stored records are never trusted here). */
function inspectWithoutProc(record: ProcessRecord): GroupInspection {
  if (groupIsAbsent(record.pgid)) return { ours: false, live: [], complete: true };
  const unknown = { pid: record.pgid, state: "?", ppid: 0, pgrp: record.pgid, sid: record.pgid };
  return { ours: true, live: [{ ...unknown, startTime: 0, ticks: 0, threads: 1 }], complete: true };
}

/**
 * Leader present: ours only if it is the recorded process, still leading its own session
 * and group.
 *
 * @example
 * ```ts
 * import { leaderIsOurs } from "./group_identity.ts";
 * const leader = { pid: 7, state: "S", ppid: 1, pgrp: 7, sid: 7, startTime: 5, ticks: 0, threads: 1 };
 * leaderIsOurs({ pid: 7, pgid: 7, startTime: 5, bootId: null }, leader); // true
 * ```
 */
export function leaderIsOurs(record: ProcessRecord, leader: ProcStat): boolean {
  return leader.pgrp === record.pgid && leader.sid === record.pgid &&
    leader.startTime === record.startTime;
}

/**
 * Decide whether `record`'s group is still ours and list its running members
 * (see the module documentation for the rules), scanning `/proc` within `budget`.
 * A scan cut by its budget makes the inspection incomplete (`complete: false`): with the
 * leader alive and ours the group is still ours (and the leader, when running, is in
 * `live`); with the leader gone, membership cannot be checked and the group is *not*
 * ours to signal — but not gone either.
 *
 * @example
 * ```ts
 * import { inspectGroup } from "./group_identity.ts";
 * const r = inspectGroup({ pid: 999999999, pgid: 999999999, startTime: 1, bootId: null });
 * console.log(r.ours, r.complete); // false true
 * ```
 */
export function inspectGroup(record: ProcessRecord, budget: ScanBudget = {}): GroupInspection {
  const none = { ours: false, live: [], complete: true };
  if (!isSignallable(record)) return none;
  if (!hasProc()) return inspectWithoutProc(record);
  const startTime = record.startTime;
  if (startTime === null || record.bootId !== currentBootId()) return none;
  const leader = readProcStat(record.pid);
  if (leader !== null) {
    if (!leaderIsOurs(record, leader)) return none;
    const scan = liveGroupMembers(record.pgid, budget);
    const running = leader.state !== "Z" && leader.state !== "X";
    const live = running && !scan.members.some((p) => p.pid === leader.pid)
      ? [leader, ...scan.members]
      : scan.members;
    return { ours: true, live, complete: scan.complete };
  }
  if (groupIsAbsent(record.pgid)) return none;
  const { members, complete } = scanGroup(record.pgid, budget);
  if (!complete) return { ours: false, live: [], complete: false };
  const foreign = members.some((p) => p.sid !== record.pgid || p.startTime < startTime);
  if (foreign || members.length === 0) return none;
  const live = members.filter((p) => p.state !== "Z" && p.state !== "X");
  return { ours: true, live, complete: true };
}

/**
 * True only when the inspection saw the whole group and nothing of ours runs: a partial
 * view is never "gone".
 *
 * @example
 * ```ts
 * import { inspectGroup, isGroupGone } from "./group_identity.ts";
 * isGroupGone(inspectGroup({ pid: 999999999, pgid: 999999999, startTime: 1, bootId: null })); // true
 * ```
 */
export function isGroupGone(view: GroupInspection): boolean {
  return view.complete && (!view.ours || view.live.length === 0);
}
