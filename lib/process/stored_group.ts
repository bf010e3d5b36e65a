/**
 * Verifying a group record read back from disk (a journal after a crash), which may be
 * forged: any tool can write a file in the state directory, and pid, start time and boot
 * id are public in `/proc`. Only a record whose verdict is `ours` may be signalled (see
 * kill_group.ts's module documentation).
 *
 * @module
 */

import { type TagVerdict, tagVerdict } from "./tag_check.ts";
import {
  currentBootId,
  GROUP_TAG_PATTERN,
  liveGroupMembers,
  type ProcessRecord,
  readProcStat,
} from "./proc_identity.ts";
import type { ScanBudget } from "./proc_budget.ts";
import { groupIsAbsent, hasProc, isSignallable, leaderIsOurs } from "./group_identity.ts";

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
 * import { verifyStoredGroup } from "./stored_group.ts";
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
