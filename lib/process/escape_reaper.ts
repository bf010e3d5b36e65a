/**
 * Reaping processes that left their group. Every group toolhost starts is a session of
 * its own and is killed as a group — but a descendant that calls `setsid` (a daemonizing
 * tool, `setsid cmd &`, a double fork) leaves the group and would outlive the call. Each
 * group's environment therefore carries a random tag ({@link GROUP_TAG_VAR}); once the
 * group is gone, every process that still carries the tag in `/proc/<pid>/environ` and
 * started after the group's leader is SIGKILLed (its start time re-checked just before).
 * A process that clears its own environment is not found: tools are trusted programs,
 * this catches accidents, not adversaries. Linux only (needs `/proc`); elsewhere a no-op.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import process from "node:process";
import { Buffer } from "node:buffer";
import { readProcStat } from "./proc_identity.ts";
import { readProcLine } from "./proc_line.ts";
import { Deadline, DEFAULT_SCAN_ENTRIES, type ScanBudget, scanPids } from "./proc_budget.ts";

/**
 * The environment variable holding a group's tag. Its leading underscore keeps it out of
 * the `TOOLHOST_*` names that carry toolhost's own interface to tools.
 */
export const GROUP_TAG_VAR = "_TOOLHOST_GROUP_TAG";

/** Most scan rounds (an escapee may fork while it is being killed). */
const MAX_ROUNDS = 5;

/**
 * A fresh random tag for one group (128 bits, hex).
 *
 * @example
 * ```ts
 * import { newGroupTag } from "./escape_reaper.ts";
 * newGroupTag().length; // 32
 * ```
 */
export function newGroupTag(): string {
  return randomBytes(16).toString("hex");
}

/** The group whose escapees are looked for: its tag and its leader's identity. */
export interface TaggedGroup {
  /** The tag in the group's environment. */
  tag: string;
  /** Leader pid: on a system whose pids have not wrapped, escapees have larger ones. */
  pid: number;
  /** Leader start time (clock ticks since boot); escapees started no earlier. */
  startTime: number | null;
}

/** What one reaping did. */
export interface ReapOutcome {
  /** The processes signalled. */
  killed: { pid: number; startTime: number }[];
  /**
   * False when a scan ran out of its entry or time budget (proc_budget.ts), an
   * environment was too large to search, or new tagged processes were still found in the
   * last round (forking faster than they are killed): escapees may remain.
   */
  complete: boolean;
}

/**
 * SIGKILL every process that still carries `group.tag` and started after its leader,
 * scanning within `budget` (one time budget for all rounds together); reports the
 * processes signalled and whether every scan was whole. Synchronous, so it also runs as
 * a last resort.
 *
 * @example
 * ```ts
 * import { newGroupTag, reapTagged } from "./escape_reaper.ts";
 * const r = reapTagged({ tag: newGroupTag(), pid: 1, startTime: 0 });
 * console.log(r.killed.length, r.complete); // 0 true
 * ```
 */
export function reapTagged(group: TaggedGroup, budget: ScanBudget = {}): ReapOutcome {
  const killed: { pid: number; startTime: number }[] = [];
  if (!existsSync("/proc/self/environ")) return { killed, complete: true };
  const needle = tagNeedle(group.tag);
  const deadline = new Deadline(budget.maxMs);
  const signalled = new Set<string>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const scan = tagged(needle, group, { ...budget, maxMs: deadline.left() });
    // A process signalled in an earlier round may still be dying: only new ones count.
    const fresh = scan.found.filter((p) => !signalled.has(`${p.pid}:${p.startTime}`));
    for (const p of fresh) {
      if (readProcStat(p.pid)?.startTime !== p.startTime) continue; // gone, or a new process
      try {
        process.kill(p.pid, "SIGKILL");
        killed.push(p);
        signalled.add(`${p.pid}:${p.startTime}`);
      } catch { /* exited meanwhile */ }
    }
    if (!scan.complete) return { killed, complete: false };
    if (fresh.length === 0) return { killed, complete: true };
  }
  return { killed, complete: false };
}

/**
 * SIGKILL every process that still carries `group.tag` and started after its leader;
 * returns the processes signalled (best effort: {@link reapTagged} also says whether
 * every scan was whole).
 *
 * @example
 * ```ts
 * import { newGroupTag, reapTaggedEscapes } from "./escape_reaper.ts";
 * reapTaggedEscapes({ tag: newGroupTag(), pid: 1, startTime: 0 }).length; // 0
 * ```
 */
export function reapTaggedEscapes(group: TaggedGroup): { pid: number; startTime: number }[] {
  return reapTagged(group).killed;
}

/**
 * {@link reapTagged}, then wait (at most `ms`, default 2000) until every process it
 * signalled is gone or a zombie. Resolves to whether all are — false also when a scan was
 * cut by its budget (escapees may remain unseen).
 *
 * @example
 * ```ts
 * import { newGroupTag, reapEscapesConfirmed } from "./escape_reaper.ts";
 * await reapEscapesConfirmed({ tag: newGroupTag(), pid: 1, startTime: 0 }); // true
 * ```
 */
export async function reapEscapesConfirmed(
  group: TaggedGroup,
  ms = 2000,
  budget: ScanBudget = {},
): Promise<boolean> {
  const reaped = reapTagged(group, budget);
  let left = reaped.killed;
  const deadline = Date.now() + ms;
  while (left.length > 0) {
    left = left.filter((p) => {
      const st = readProcStat(p.pid);
      return st !== null && st.startTime === p.startTime && st.state !== "Z" && st.state !== "X";
    });
    if (left.length === 0 || Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return reaped.complete && left.length === 0;
}

/**
 * Leaders of groups this process spawned (spawn_group.ts) that may still run: pid → start
 * time. Each was started with an environment toolhost built and a fresh tag of its own, so
 * it carries no other group's tag: the reaper knows it without reading its environment.
 * On a busy server most processes created during a call are such leaders (other calls'
 * tools, tool-session harnesses).
 */
const ownLeaders = new Map<number, number>();

/**
 * Note a group leader this process just spawned with a tag of its own (see
 * {@link forgetOwnLeader}); a null start time (no `/proc`) is not noted.
 *
 * @example
 * ```ts
 * import { forgetOwnLeader, noteOwnLeader } from "./escape_reaper.ts";
 * noteOwnLeader(4242, 777);
 * forgetOwnLeader(4242, 777);
 * ```
 */
export function noteOwnLeader(pid: number, startTime: number | null): void {
  if (startTime !== null) ownLeaders.set(pid, startTime);
}

/**
 * Forget a leader noted with {@link noteOwnLeader} once its group is confirmed gone.
 *
 * @example
 * ```ts
 * import { forgetOwnLeader } from "./escape_reaper.ts";
 * forgetOwnLeader(4242, 777);
 * ```
 */
export function forgetOwnLeader(pid: number, startTime: number | null): void {
  if (startTime !== null && ownLeaders.get(pid) === startTime) ownLeaders.delete(pid);
}

/**
 * Past this many pids created since the leader, one listing of `/proc` is cheaper. Pids
 * count threads too, and a probed thread created after the leader costs a stat and an
 * environment read like a process, while a listing names processes only: on a busy
 * machine (a browser's, a server's threads coming and going) a call's range holds
 * hundreds of them, and at 2048 the probe was a third of a loaded server's CPU.
 */
const RANGE_PROBE_LIMIT = 64;

type Found = { pid: number; startTime: number };

/**
 * The running processes that carry `needle` and may have been created after the leader.
 * Pids are handed out in increasing order until they wrap, so usually only (leader, last
 * pid] can hold them — probed directly, which for a short call is a handful of checks
 * instead of listing `/proc`; otherwise one bounded listing.
 */
function tagged(
  needle: Buffer,
  group: TaggedGroup,
  budget: ScanBudget,
): { found: Found[]; complete: boolean } {
  const found: Found[] = [];
  let unknown = false; // an environment too large to search: the scan is not whole
  const consider = (pid: number): void => {
    if (pid === process.pid) return;
    const stat = readProcStat(pid);
    if (stat === null || stat.state === "Z" || stat.state === "X") return;
    if (group.startTime !== null && stat.startTime < group.startTime) return;
    // Another group's leader, by pid and start time from this very stat read.
    if (pid !== group.pid && ownLeaders.get(pid) === stat.startTime) return;
    const has = carries(pid, needle);
    if (has === undefined) unknown = true;
    if (has === true) found.push({ pid, startTime: stat.startTime });
  };
  const leader = group.pid;
  const last = lastPid();
  if (budget.dir === undefined && last >= leader && last - leader <= RANGE_PROBE_LIMIT) {
    const deadline = new Deadline(budget.maxMs);
    const maxEntries = budget.maxEntries ?? DEFAULT_SCAN_ENTRIES;
    for (let pid = leader + 1; pid <= last; pid++) {
      const n = pid - leader;
      if (n > maxEntries || ((n & 31) === 1 && deadline.passed())) {
        return { found, complete: false };
      }
      consider(pid);
    }
    return { found, complete: !unknown };
  }
  const wrapped = last < leader;
  const { complete } = scanPids((pid) => {
    if (wrapped || pid > leader) consider(pid);
  }, budget);
  return { found, complete: complete && !unknown };
}

/**
 * Whether process `pid` carries group tag `tag` in its environment (`/proc/<pid>/environ`,
 * the environment it was started with). False when it cannot be read (gone, or another
 * user's process).
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { carriesGroupTag, newGroupTag } from "./escape_reaper.ts";
 * carriesGroupTag(process.pid, newGroupTag()); // false
 * ```
 */
export function carriesGroupTag(pid: number, tag: string): boolean {
  return carries(pid, tagNeedle(tag)) === true;
}

/** What is looked for: the variable as a whole entry (NUL before it, or the start). */
function tagNeedle(tag: string): Buffer {
  return Buffer.from(`\0${GROUP_TAG_VAR}=${tag}\0`);
}

/** Most bytes of one environment read (the kernel's own bound is a quarter of the stack
 * limit; past this the answer is unknown). */
const MAX_ENVIRON_BYTES = 64 * 1024 * 1024;

/** Bytes read at a time: an environment is searched with flat memory. */
const ENVIRON_CHUNK = 64 * 1024;

/** The read buffer of {@link carries}, grown once to fit the needle and a chunk. */
let scratch: Buffer = Buffer.alloc(0);

/**
 * Whether `/proc/<pid>/environ` holds `needle` (from {@link tagNeedle}), streaming with
 * flat memory; false when it cannot be read (another user's process, or gone), undefined
 * when it is larger than {@link MAX_ENVIRON_BYTES}.
 */
function carries(pid: number, needle: Buffer): boolean | undefined {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/environ`, "r");
  } catch {
    return false;
  }
  try {
    // The file is searched as if it started with a NUL, so the first entry matches too.
    const keep = needle.length - 1;
    // One buffer for every read (this is synchronous, so never shared by two searches):
    // a fresh 64 KiB per process probed was a tenth of a busy server's CPU.
    if (scratch.length < keep + ENVIRON_CHUNK) scratch = Buffer.alloc(keep + ENVIRON_CHUNK);
    const buf = scratch;
    buf.fill(0, 0, keep);
    let have = keep;
    for (let total = 0; total <= MAX_ENVIRON_BYTES;) {
      const n = readSync(fd, buf, have, ENVIRON_CHUNK, null);
      if (n === 0) return false;
      total += n;
      if (buf.subarray(0, have + n).indexOf(needle) !== -1) return true;
      buf.copy(buf, 0, have + n - keep, have + n);
      have = keep;
    }
    return undefined;
  } catch {
    return false; // gone meanwhile
  } finally {
    closeSync(fd);
  }
}

/** The most recently created pid (`/proc/loadavg`), or +∞ when unknown. */
function lastPid(): number {
  try {
    const f = readProcLine("/proc/loadavg").trim().split(" ");
    const n = Number(f[f.length - 1]);
    return Number.isInteger(n) ? n : Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
