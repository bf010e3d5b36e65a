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

import process from "node:process";
import { currentBootId, type ProcessRecord, readProcStat } from "./proc_identity.ts";
import type { ScanBudget } from "./proc_budget.ts";
import {
  hasProc,
  inspectGroup,
  isGroupGone,
  isSignallable,
  leaderIsOurs,
} from "./group_identity.ts";

export {
  type GroupInspection,
  inspectGroup,
  isGroupGone,
  isSignallable,
} from "./group_identity.ts";
export { type StoredGroupVerdict, verifyStoredGroup } from "./stored_group.ts";

/**
 * Result of {@linkcode signalGroup}: `unconfirmed` when the group could not be seen whole
 * within the scan budget (nothing was signalled, and it is not known to be gone).
 */
export type SignalOutcome = "signalled" | "gone" | "denied" | "unconfirmed";

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
