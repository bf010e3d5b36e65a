/**
 * Killing everything a tool started — its process group at once, then every tracked
 * descendant (by pid and start time, see descendants.ts) wherever it moved — in bounded
 * rounds, since a process may fork while it is being killed.
 *
 * @module
 */

import process from "node:process";
import { isSignallable } from "../process/kill_group.ts";
import { isSameProcess, type ProcessRecord, readProcStat } from "../process/proc_identity.ts";
import type { DescendantTracker } from "./descendants.ts";

/** Most rounds of {@link killTreeConfirmed}. */
const MAX_ROUNDS = 8;

/** A process that was signalled. */
export interface Killed {
  /** Its pid. */
  pid: number;
  /** Its start time (clock ticks since boot). */
  startTime: number;
}

function alive(pid: number, startTime: number): boolean {
  const st = readProcStat(pid);
  return st !== null && st.startTime === startTime && st.state !== "Z" && st.state !== "X";
}

/** SIGKILL each live process of `list`; returns how many were not already killed. */
function killEach(list: Killed[], into: Map<number, Killed>): number {
  let n = 0;
  for (const m of list) {
    if (m.pid <= 1 || m.pid === process.pid || !alive(m.pid, m.startTime)) continue;
    // Killed in an earlier round and still dying (a loaded machine takes a while): not
    // new, else rounds never come up empty. The wait below confirms it ends.
    const before = into.get(m.pid);
    const again = before !== undefined && before.startTime === m.startTime;
    try {
      process.kill(m.pid, "SIGKILL");
      into.set(m.pid, m);
      if (!again) n++;
    } catch { /* exited meanwhile */ }
  }
  return n;
}

function killGroup(record: ProcessRecord): void {
  // isSignallable refuses our own group and session: a process toolhost did not start in a
  // group of its own (an extension server, say) must never turn this into a kill of us.
  if (!isSignallable(record) || !isSameProcess(record)) return;
  try {
    process.kill(-record.pgid, "SIGKILL");
  } catch { /* gone already */ }
}

/**
 * At once, synchronously: SIGKILL the leader's group (while the leader is the recorded
 * process) and every descendant the tracker knows, without reading `/proc` beyond each
 * one's identity. Returns the processes signalled one by one.
 *
 * @example
 * ```ts
 * import { DescendantTracker } from "./descendants.ts";
 * import { killKnown } from "./tree_kill.ts";
 * const record = { pid: 999999999, pgid: 999999999, startTime: 1, bootId: null };
 * killKnown(new DescendantTracker({ pid: 999999999, startTime: 1 }), record).length; // 0
 * ```
 */
export function killKnown(tracker: DescendantTracker, record: ProcessRecord): Killed[] {
  killGroup(record);
  const killed = new Map<number, Killed>();
  killEach(tracker.known(), killed);
  return [...killed.values()];
}

/**
 * Kill the group and every descendant the tracker knows or finds (a walk and a `/proc`
 * scan per round, yielding to the event loop), round after round until one finds none
 * (at most 8), then wait (at most `ms`, default 10,000 — a loaded machine can take
 * seconds to end a SIGKILLed process; it returns as soon as they are gone) until every
 * process signalled is gone or a zombie. Resolves to whether all are — false also when
 * no round came up empty or a round's `/proc` scan was cut by its budget (processes may
 * remain unseen).
 *
 * @example
 * ```ts
 * import { DescendantTracker } from "./descendants.ts";
 * import { killTreeConfirmed } from "./tree_kill.ts";
 * const record = { pid: 999999999, pgid: 999999999, startTime: 1, bootId: null };
 * await killTreeConfirmed(new DescendantTracker({ pid: 999999999, startTime: 1 }), record); // true
 * ```
 */
export async function killTreeConfirmed(
  tracker: DescendantTracker,
  record: ProcessRecord,
  ms = 10_000,
): Promise<boolean> {
  const killed = new Map<number, Killed>();
  // Fail closed: a round that could not see everything, or rounds that never came up
  // empty, leave processes that may still run.
  let whole = false;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    killGroup(record);
    const { known, complete } = await tracker.collect();
    if (killEach(known, killed) === 0 && complete) {
      whole = true;
      break;
    }
  }
  let left = [...killed.values()];
  const deadline = Date.now() + ms;
  while (left.length > 0) {
    left = left.filter((p) => alive(p.pid, p.startTime));
    if (left.length === 0 || Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return whole && left.length === 0;
}
