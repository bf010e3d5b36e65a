/**
 * The groups this process started whose end is not confirmed yet: what the last resort
 * (last_resort.ts: `exit`, and Deno's uncaught errors) SIGKILLs, and what escapes of them
 * it reaps. A group is tracked from its spawn until its end is confirmed.
 *
 * @module
 */

import { onLastResort } from "./last_resort.ts";
import { signalGroup } from "./kill_group.ts";
import type { ProcessRecord } from "./proc_identity.ts";
import { killLaunching } from "./session_launcher.ts";
import { disarmDeadMan } from "./dead_man.ts";
import { forgetOwnLeader, noteOwnLeader, reapTaggedEscapes } from "./escape_reaper.ts";

/** What the last resort needs of a live group. */
export interface LiveGroup {
  /** The leader's identity (`pgid === pid`). */
  readonly record: ProcessRecord;
  /** The group's tag (`_TOOLHOST_GROUP_TAG`). */
  readonly tag: string;
  /** A sandbox (its dead man's switch stays armed until it is settled). */
  readonly sandboxed: boolean;
  /** Started through the session launcher and not yet seen leading its own session. */
  readonly launching: boolean;
}

const unconfirmed = new Set<LiveGroup>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  onLastResort(killLiveGroupsSync);
}

/**
 * Last-resort synchronous cleanup: SIGKILL every group started by this process whose
 * termination has not been confirmed yet. Runs as a last resort (last_resort.ts: `exit`,
 * and Deno's uncaught errors); a CLI
 * may also call it from its own SIGINT/SIGTERM handlers. Returns how many were signalled.
 *
 * @example
 * ```ts
 * import { killLiveGroupsSync } from "./live_groups.ts";
 * killLiveGroupsSync(); // 0 when nothing is running
 * ```
 */
export function killLiveGroupsSync(): number {
  let n = 0;
  for (const handle of unconfirmed) {
    // Not a session leader yet (session_launcher.ts): no group signal can reach it.
    if (handle.launching && killLaunching(handle.record)) n++;
    if (signalGroup(handle.record, "SIGKILL") === "signalled") n++;
    const { pid, startTime } = handle.record;
    n += reapTaggedEscapes({ tag: handle.tag, pid, startTime }).length;
  }
  return n;
}

/**
 * Track a group just spawned until {@linkcode settleLiveGroup}: the last resort ends it,
 * and an orphan of its leader is not taken for an adopted stranger.
 *
 * @example
 * ```ts
 * import { settleLiveGroup, trackLiveGroup } from "./live_groups.ts";
 * const g = { record: { pid: 999999999, pgid: 999999999, startTime: 1, bootId: null }, tag: "t", sandboxed: false, launching: false };
 * trackLiveGroup(g);
 * settleLiveGroup(g);
 * ```
 */
export function trackLiveGroup(group: LiveGroup): void {
  installExitHook();
  unconfirmed.add(group);
  noteOwnLeader(group.record.pid, group.record.startTime); // forgotten when settled
}

/**
 * The group is gone for good: forget it, and strike it off the dead man's switch.
 *
 * @example
 * ```ts
 * import { settleLiveGroup } from "./live_groups.ts";
 * settleLiveGroup({ record: { pid: 999999999, pgid: 999999999, startTime: 1, bootId: null }, tag: "t", sandboxed: false, launching: false });
 * ```
 */
export function settleLiveGroup(group: LiveGroup): void {
  unconfirmed.delete(group);
  forgetOwnLeader(group.record.pid, group.record.startTime);
  if (group.sandboxed) disarmDeadMan(group.tag);
}
