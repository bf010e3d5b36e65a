/**
 * Last-resort cleanup when the process ends without `registry.close()`: on the process
 * `exit` event (normal end, `process.exit()`, and uncaught exceptions under Node) and on
 * the global `error` / `unhandledrejection` events (uncaught errors under Deno, which
 * skips `exit` then) every live session synchronously SIGKILLs its recorded groups
 * (identity-checked), waits briefly for `/proc` to confirm, and removes its root — or
 * releases its lease so the next start sweeps it. Stop cannot run here; SIGKILL of
 * toolhost itself is handled by the sweep.
 *
 * @module
 */

import { onLastResort } from "../process/last_resort.ts";
import { unlinkSync } from "node:fs";
import { join } from "node:path";
import { inspectGroup, isGroupGone, signalGroup } from "../process/kill_group.ts";
import type { ProcessRecord } from "../process/proc_identity.ts";
import { RECORD_FILES } from "./session_dir.ts";
import { removeTreeNoFollowSync } from "../paths/remove_tree.ts";

/** What the net needs from a live session. */
export interface NetMember {
  /** The session root, or undefined before it exists. */
  root(): string | undefined;
  /** Groups admitted and not retired. */
  liveGroups(): ProcessRecord[];
}

const members = new Set<NetMember>();
let installed = false;

/** How long the net waits for killed groups to vanish, in ms. */
const NET_CONFIRM_MS = 1000;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function allGone(records: ProcessRecord[]): boolean {
  return records.every((r) => isGroupGone(inspectGroup(r)));
}

/**
 * Run the net now for every registered member (synchronous). Returns how many session
 * roots were removed.
 *
 * @example
 * ```ts
 * import { runSafetyNet } from "./safety_net.ts";
 * runSafetyNet(); // 0 when no session is live
 * ```
 */
export function runSafetyNet(): number {
  const list = [...members];
  members.clear();
  const records = list.flatMap((m) => m.liveGroups());
  for (const r of records) signalGroup(r, "SIGKILL");
  const deadline = Date.now() + NET_CONFIRM_MS;
  while (!allGone(records) && Date.now() < deadline) sleepSync(10);
  let removed = 0;
  for (const m of list) {
    const root = m.root();
    if (root === undefined) continue;
    try {
      if (!allGone(m.liveGroups())) throw new Error("unconfirmed");
      removeTreeNoFollowSync(root); // any depth a harness nested its folders to
      removed++;
    } catch {
      try {
        unlinkSync(join(root, RECORD_FILES.lease));
      } catch {
        // Nothing more can be done synchronously; the owner's exit makes the root stale.
      }
    }
  }
  return removed;
}

function install(): void {
  if (installed) return;
  installed = true;
  onLastResort(runSafetyNet);
}

/**
 * Register a live session (installs the process hooks once).
 *
 * @example
 * ```ts
 * import { joinSafetyNet, leaveSafetyNet } from "./safety_net.ts";
 * const m = { root: () => undefined, liveGroups: () => [] };
 * joinSafetyNet(m);
 * leaveSafetyNet(m);
 * ```
 */
export function joinSafetyNet(member: NetMember): void {
  install();
  members.add(member);
}

/**
 * Unregister a session whose cleanup finished (successfully or not).
 *
 * @example
 * ```ts
 * import { leaveSafetyNet } from "./safety_net.ts";
 * leaveSafetyNet({ root: () => undefined, liveGroups: () => [] });
 * ```
 */
export function leaveSafetyNet(member: NetMember): void {
  members.delete(member);
}
