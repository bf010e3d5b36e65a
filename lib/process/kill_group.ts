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
 * Fail-closed guards on every record: no signal is ever sent for pid/pgid 0, 1, a negative
 * or out-of-range number, a pgid other than the pid, this process or its own group or
 * session, a record without a start time (where `/proc` exists), or a boot id that is not
 * exactly the current one.
 *
 * Records read back from disk (journals after a crash) may be forged — any tool can write
 * a file in the state directory, and pid, start time and boot id are public in `/proc` —
 * so {@linkcode verifyStoredGroup} is stricter still: the leader must be alive with
 * exactly the recorded boot id and start time *and* carry the group's secret tag in its
 * environment (or, once the leader is gone, every running member must). Rule 3 (members
 * of a leaderless group) is only ever applied to a group this process verified or spawned
 * moments before.
 *
 * @module
 */

import { existsSync } from "node:fs";
import process from "node:process";
import { type TagVerdict, tagVerdict } from "./tag_check.ts";
import {
  currentBootId,
  GROUP_TAG_PATTERN,
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
 * Result of {@linkcode signalGroup}: `unconfirmed` when the group could not be seen whole
 * within the scan budget (nothing was signalled, and it is not known to be gone).
 */
export type SignalOutcome = "signalled" | "gone" | "denied" | "unconfirmed";

function groupIsAbsent(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return false;
  } catch (e) {
    return (e as { code?: string }).code === "ESRCH";
  }
}

let procAvailable: boolean | undefined;

function hasProc(): boolean {
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
 * import { isSignallable } from "./kill_group.ts";
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

/** Leader present: ours only if it is the recorded process, still leading its own
 * session and group. */
function leaderIsOurs(record: ProcessRecord, leader: ProcStat): boolean {
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
 * import { inspectGroup } from "./kill_group.ts";
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
 * import { inspectGroup, isGroupGone } from "./kill_group.ts";
 * isGroupGone(inspectGroup({ pid: 999999999, pgid: 999999999, startTime: 1, bootId: null })); // true
 * ```
 */
export function isGroupGone(view: GroupInspection): boolean {
  return view.complete && (!view.ours || view.live.length === 0);
}

/**
 * How a group record read back from disk compares with the live system:
 * - `ours`: its leader runs with exactly the recorded boot id and start time, leading its
 *   own session and group, and carries the recorded group tag in its environment — or
 *   the leader is gone (or a zombie) and every running member of the group is in the
 *   leader's session, started no earlier, and carries the tag. It may be ended;
 * - `gone`: nothing of it runs any more (another boot; the leader's pid now belongs to a
 *   younger process; or the leader is gone and no running process is in the group);
 * - `unverified`: something runs under the recorded identity but does not carry the tag
 *   (a forged record naming another process, with its public start time and boot id
 *   copied; a process that cleared or lost its environment; one whose environment cannot
 *   be read) — it is left alone (also: no `/proc` to check);
 * - `invalid`: the record is incomplete or names what toolhost never records (see
 *   {@linkcode isSignallable}; a missing or malformed tag); it is never signalled;
 * - `unconfirmed`: the leader is gone and the group's members could not all be seen
 *   within the scan budget (proc_budget.ts), or a process of it was in the middle of an
 *   `exec` each time its environment was read (tag_check.ts): it is neither signalled nor
 *   taken for gone.
 */
export type StoredGroupVerdict = "ours" | "gone" | "unverified" | "invalid" | "unconfirmed";

/**
 * Decide, fail-closed, whether a stored (possibly forged) record may be signalled: only
 * when its verdict is `ours`. The tag is the part of the identity that cannot be forged:
 * pid, start time and boot id are public in `/proc`, but a process's environment can only
 * be read by its own user or root — who could signal it anyway.
 *
 * @example
 * ```ts
 * import { verifyStoredGroup } from "./kill_group.ts";
 * verifyStoredGroup({ pid: 4242, pgid: 4242, startTime: null, bootId: null }); // "invalid"
 * ```
 */
export function verifyStoredGroup(
  record: ProcessRecord,
  budget: ScanBudget = {},
): StoredGroupVerdict {
  const { startTime, bootId, tag } = record;
  if (!isSignallable(record) || startTime === null || !Number.isSafeInteger(startTime)) {
    return "invalid";
  }
  if (typeof bootId !== "string" || bootId === "") return "invalid";
  if (typeof tag !== "string" || !GROUP_TAG_PATTERN.test(tag)) return "invalid";
  if (!hasProc() || currentBootId() === null) return "unverified";
  if (bootId !== currentBootId()) return "gone";
  const leader = readProcStat(record.pid);
  if (leader !== null) {
    // A reused pid: the number was free, so our group (which reserved it) was empty.
    if (leader.startTime !== startTime) return "gone";
    if (!leaderIsOurs(record, leader)) return "invalid";
    if (leader.state !== "Z" && leader.state !== "X") {
      return TAG_TO_VERDICT[tagVerdict(record.pid, startTime, tag)];
    }
    // A zombie's environment is gone: judge the group by its running members.
  } else if (groupIsAbsent(record.pgid)) {
    return "gone";
  }
  const { members, complete } = liveGroupMembers(record.pgid, budget);
  if (!complete) return "unconfirmed";
  if (members.length === 0) return "gone";
  let unsettled = false;
  for (const p of members) {
    if (p.sid !== record.pgid || p.startTime < startTime) return "unverified";
    const v = tagVerdict(p.pid, p.startTime, tag);
    if (v === "lacks") return "unverified";
    if (v === "unsettled") unsettled = true;
  }
  return unsettled ? "unconfirmed" : "ours";
}

/** A running process's tag check as a verdict (tag_check.ts): one caught in the middle of
 * an `exec` is looked at again by a later sweep, never taken for foreign. */
const TAG_TO_VERDICT: Record<TagVerdict, StoredGroupVerdict> = {
  carries: "ours",
  lacks: "unverified",
  unsettled: "unconfirmed",
};

/**
 * Send `signal` to the recorded group after checking it is still ours. Returns `gone`
 * when nothing of ours runs any more, `denied` when the kernel refused (EPERM),
 * `unconfirmed` when the group could not be checked within the scan budget.
 *
 * @example
 * ```ts
 * import { signalGroup } from "./kill_group.ts";
 * signalGroup({ pid: 999999999, pgid: 999999999, startTime: 1, bootId: null }, "SIGTERM"); // "gone"
 * ```
 */
export function signalGroup(
  record: ProcessRecord,
  signal: NodeJS.Signals,
  budget: ScanBudget = {},
): SignalOutcome {
  // A running leader that is ours makes the group ours and not empty: signal it without
  // listing its members (a `/proc` scan costs a read per process on the machine).
  if (leaderRunsOurs(record)) return sendToGroup(record, signal);
  const { ours, live, complete } = inspectGroup(record, budget);
  if (!ours || !isSignallable(record)) return complete ? "gone" : "unconfirmed";
  // A verified leader makes the group ours: a partial view still signals it.
  if (live.length === 0 && complete) return "gone";
  return sendToGroup(record, signal);
}

function sendToGroup(record: ProcessRecord, signal: NodeJS.Signals): SignalOutcome {
  try {
    process.kill(-record.pgid, signal);
    return "signalled";
  } catch (e) {
    return (e as { code?: string }).code === "EPERM" ? "denied" : "gone";
  }
}

/**
 * The recorded leader runs (not a zombie) and is ours by {@link inspectGroup}'s rule 1:
 * a signallable record of this boot whose leader has the recorded start time and still
 * leads its own session and group. Then the group is ours and has a running member
 * whatever a scan would list, so {@link signalGroup} and {@link waitGroupEmpty} need no
 * scan. Reads one `/proc/<pid>/stat`.
 */
function leaderRunsOurs(record: ProcessRecord): boolean {
  return leaderState(record) === "running";
}

/**
 * The recorded leader, when it is ours (see {@link leaderRunsOurs}): `running`, or
 * `zombie-child` — exited, and this process's own child, so this process reaps it (Node
 * and Deno always do) and one `kill(-pgid, 0)` then tells whether anything of the group
 * is left. Undefined otherwise (gone, not ours, no `/proc`).
 */
function leaderState(record: ProcessRecord): "running" | "zombie-child" | undefined {
  if (!isSignallable(record) || !hasProc()) return undefined;
  if (record.startTime === null || record.bootId !== currentBootId()) return undefined;
  const leader = readProcStat(record.pid);
  if (leader === null || !leaderIsOurs(record, leader)) return undefined;
  if (leader.state !== "Z" && leader.state !== "X") return "running";
  return leader.ppid === process.pid ? "zombie-child" : undefined;
}

/** Options of {@linkcode terminateGroup}. */
export interface TerminateOptions {
  /** Time between SIGTERM and SIGKILL, in ms. Default 2000. */
  graceMs?: number;
  /** How long to keep sending SIGKILL before giving up, in ms. Default 5000. */
  killBoundMs?: number;
  /** Budget of every `/proc` scan (proc_budget.ts defaults). */
  scan?: ScanBudget;
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
 * Poll until the group has no running member or `ms` elapsed; true when empty (seen
 * whole: a scan cut by its budget never counts as empty).
 *
 * @example
 * ```ts
 * import { waitGroupEmpty } from "./kill_group.ts";
 * await waitGroupEmpty({ pid: 999999999, pgid: 999999999, startTime: 1, bootId: null }, 10); // true
 * ```
 */
export async function waitGroupEmpty(
  record: ProcessRecord,
  ms: number,
  budget: ScanBudget = {},
): Promise<boolean> {
  const deadline = Date.now() + ms;
  let pause = 2;
  for (;;) {
    const last = Date.now() >= deadline;
    // No scan while the leader runs (the group is not empty), nor, before the deadline,
    // while it is our own unreaped child: a scan per poll there cost a busy server a read
    // of every process's stat until its event loop came round to reaping the child.
    const leader = leaderState(record);
    const scan = leader === undefined || (leader === "zombie-child" && last);
    if (scan && isGroupGone(inspectGroup(record, budget))) return true;
    if (last) return false;
    await sleep(Math.max(0, Math.min(pause, deadline - Date.now()))); // then a last look
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
  const scan = options.scan ?? {};
  const first = signalGroup(record, "SIGTERM", scan);
  if (first === "gone") return { confirmed: true, signalled: false };
  let signalled = first !== "unconfirmed";
  if (await waitGroupEmpty(record, graceMs, scan)) return { confirmed: true, signalled };
  const deadline = Date.now() + killBoundMs;
  while (Date.now() < deadline) {
    const outcome = signalGroup(record, "SIGKILL", scan);
    if (outcome === "gone") return { confirmed: true, signalled };
    signalled ||= outcome !== "unconfirmed";
    if (await waitGroupEmpty(record, 100, scan)) return { confirmed: true, signalled };
  }
  return { confirmed: await waitGroupEmpty(record, 0, scan), signalled };
}
