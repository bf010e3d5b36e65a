/**
 * What the `DescendantTracker` of descendants.ts is given and keeps: the tree's root, its
 * options with their defaults, the member bound, and one member's record.
 *
 * @module
 */

import type { Orphan } from "../process/adopted.ts";
import type { ScanBudget } from "../process/proc_budget.ts";

/**
 * Most members one tracker follows; a tool with more live descendants cannot be
 * measured and is stopped by the guard.
 *
 * @example
 * ```ts
 * import { MAX_TRACKED } from "./tracker_options.ts";
 * MAX_TRACKED; // 8192
 * ```
 */
export const MAX_TRACKED = 8192;

/** The tool's first process: where tracking starts. */
export interface TreeRoot {
  /** Leader pid (also its process group and session id). */
  pid: number;
  /** Leader start time, clock ticks since boot. */
  startTime: number;
  /** The group's random tag, when its environment carries one. */
  tag?: string;
}

/** Options of {@link DescendantTracker}. */
export interface TrackerOptions {
  /** Most members followed. Default {@link MAX_TRACKED}. */
  maxTracked?: number;
  /** Longest one `step()` works, ms. Default 4. */
  sliceMs?: number;
  /** A full `/proc` scan every this many rounds (the first round never). Default 10. */
  scanEvery?: number;
  /**
   * Whether a member's resources are added to the sums (it is followed either way), e.g.
   * only members outside the call's cgroup, which the kernel does not count. Default all.
   */
  counts?: (pid: number) => boolean;
  /**
   * Budget of each full `/proc` listing (proc_budget.ts defaults). A listing cut by it
   * makes its round `truncated`: processes may have been missed, the sums are lower
   * bounds only, and the guard fails closed.
   */
  scan?: ScanBudget;
  /**
   * Whether an orphan adopted by toolhost (lib/process/adopted.ts) started no earlier than
   * the leader is this tree's (the guard decides among its live trees). Default: none.
   */
  adopts?: (o: Orphan) => boolean;
  /**
   * Read the memory members hold in open memory files (held_files.ts) and in System V
   * segments they made (sysv_shm.ts) on full-scan rounds; a member whose descriptors
   * cannot all be read makes the round `truncated`. Default off.
   */
  heldFiles?: boolean;
}

/** What the tracker keeps of one member process. */
export interface Member {
  startTime: number;
  ppid: number;
  /** CPU ticks last seen, when counted (else 0). */
  ticks: number;
  /** Bytes of memory files it held at the last full-scan round (held_files.ts). */
  held?: number;
}
