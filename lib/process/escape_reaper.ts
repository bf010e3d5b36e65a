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
import { existsSync, readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { Buffer } from "node:buffer";
import { readProcStat } from "./proc_identity.ts";

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

/**
 * SIGKILL every process that still carries `group.tag` and started after its leader;
 * returns the processes signalled. Synchronous, so it also runs as a last resort.
 *
 * @example
 * ```ts
 * import { newGroupTag, reapTaggedEscapes } from "./escape_reaper.ts";
 * reapTaggedEscapes({ tag: newGroupTag(), pid: 1, startTime: 0 }).length; // 0
 * ```
 */
export function reapTaggedEscapes(group: TaggedGroup): { pid: number; startTime: number }[] {
  if (!existsSync("/proc/self/environ")) return [];
  const needle = Buffer.from(`${GROUP_TAG_VAR}=${group.tag}\0`);
  const killed: { pid: number; startTime: number }[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const found = tagged(needle, group);
    if (found.length === 0) break;
    for (const p of found) {
      if (readProcStat(p.pid)?.startTime !== p.startTime) continue; // gone, or a new process
      try {
        process.kill(p.pid, "SIGKILL");
        killed.push(p);
      } catch { /* exited meanwhile */ }
    }
  }
  return killed;
}

/**
 * {@link reapTaggedEscapes}, then wait (at most `ms`, default 2000) until every process it
 * signalled is gone or a zombie. Resolves to whether all are.
 *
 * @example
 * ```ts
 * import { newGroupTag, reapEscapesConfirmed } from "./escape_reaper.ts";
 * await reapEscapesConfirmed({ tag: newGroupTag(), pid: 1, startTime: 0 }); // true
 * ```
 */
export async function reapEscapesConfirmed(group: TaggedGroup, ms = 2000): Promise<boolean> {
  let left = reapTaggedEscapes(group);
  const deadline = Date.now() + ms;
  while (left.length > 0) {
    left = left.filter((p) => {
      const st = readProcStat(p.pid);
      return st !== null && st.startTime === p.startTime && st.state !== "Z" && st.state !== "X";
    });
    if (left.length === 0 || Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return left.length === 0;
}

/** Past this many pids created since the leader, one listing of `/proc` is cheaper. */
const RANGE_PROBE_LIMIT = 2048;

function tagged(needle: Buffer, group: TaggedGroup): { pid: number; startTime: number }[] {
  const out: { pid: number; startTime: number }[] = [];
  for (const pid of candidates(group.pid)) {
    if (pid === process.pid) continue;
    const stat = readProcStat(pid);
    if (stat === null || stat.state === "Z" || stat.state === "X") continue;
    if (group.startTime !== null && stat.startTime < group.startTime) continue;
    if (carries(pid, needle)) out.push({ pid, startTime: stat.startTime });
  }
  return out;
}

/**
 * Pids that may belong to processes created after `leader`: pids are handed out in
 * increasing order until they wrap, so usually just (leader, last pid] — probed directly,
 * which for a short call is a handful of checks instead of listing `/proc`.
 */
function candidates(leader: number): Iterable<number> {
  const last = lastPid();
  if (last >= leader && last - leader <= RANGE_PROBE_LIMIT) {
    // readProcStat skips pids that do not exist with one cheap check each.
    return Array.from({ length: last - leader }, (_, i) => leader + 1 + i);
  }
  try {
    return readdirSync("/proc").map(Number).filter((n) =>
      Number.isInteger(n) && (last < leader || n > leader)
    );
  } catch {
    return [];
  }
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
  return carries(pid, Buffer.from(`${GROUP_TAG_VAR}=${tag}\0`));
}

function carries(pid: number, needle: Buffer): boolean {
  let env: Buffer;
  try {
    env = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false; // another user's process, or gone
  }
  for (let at = env.indexOf(needle); at !== -1; at = env.indexOf(needle, at + 1)) {
    if (at === 0 || env[at - 1] === 0) return true;
  }
  return false;
}

/** The most recently created pid (`/proc/loadavg`), or +∞ when unknown. */
function lastPid(): number {
  try {
    const f = readFileSync("/proc/loadavg", "latin1").trim().split(" ");
    const n = Number(f[f.length - 1]);
    return Number.isInteger(n) ? n : Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
