/**
 * Killing everything a tool started — its process group at once, then every tracked
 * descendant (by pid and start time, see descendants.ts) wherever it moved — in bounded
 * rounds, since a process may fork while it is being killed.
 *
 * @module
 */

import process from "node:process";
import { isSameProcess, type ProcessRecord, readProcStat } from "../process/proc_identity.ts";
import type { DescendantTracker } from "./descendants.ts";

/** Most kill rounds. */
const MAX_ROUNDS = 8;

function alive(pid: number, startTime: number): boolean {
  const st = readProcStat(pid);
  return st !== null && st.startTime === startTime && st.state !== "Z" && st.state !== "X";
}

/**
 * SIGKILL the leader's group (while the leader is the recorded process) and every live
 * descendant the tracker knows or finds, until a round finds none (at most 8 rounds).
 * Synchronous. Returns the processes signalled one by one.
 *
 * @example
 * ```ts
 * import { DescendantTracker } from "./descendants.ts";
 * import { killTree } from "./tree_kill.ts";
 * const record = { pid: 999999999, pgid: 999999999, startTime: 1, bootId: null };
 * killTree(new DescendantTracker({ pid: 999999999, startTime: 1 }), record).length; // 0
 * ```
 */
export function killTree(
  tracker: DescendantTracker,
  record: ProcessRecord,
): { pid: number; startTime: number }[] {
  const killed = new Map<number, { pid: number; startTime: number }>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (record.pgid > 1 && record.pgid !== process.pid && isSameProcess(record)) {
      try {
        process.kill(-record.pgid, "SIGKILL");
      } catch { /* gone already */ }
    }
    let signalled = 0;
    for (const m of tracker.collect()) {
      if (m.pid <= 1 || m.pid === process.pid || !alive(m.pid, m.startTime)) continue;
      try {
        process.kill(m.pid, "SIGKILL");
        killed.set(m.pid, m);
        signalled++;
      } catch { /* exited meanwhile */ }
    }
    if (signalled === 0) break;
  }
  return [...killed.values()];
}

/**
 * {@link killTree}, then wait (at most `ms`, default 2000) until every process it
 * signalled is gone or a zombie. Resolves to whether all are.
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
  ms = 2000,
): Promise<boolean> {
  let left = killTree(tracker, record);
  const deadline = Date.now() + ms;
  while (left.length > 0) {
    left = left.filter((p) => alive(p.pid, p.startTime));
    if (left.length === 0 || Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return left.length === 0;
}
