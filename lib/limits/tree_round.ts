/**
 * One round of a {@link DescendantTracker} (descendants.ts): the pids it scans, the
 * members it walks, and the sums it found so far.
 *
 * @module
 */

/** The sums of one round (so far, or complete). */
export interface TreeSample {
  /** Tasks of the running (non-zombie) members: each process with all its threads. */
  processes: number;
  /** Sum of resident memory of running members, bytes. */
  rssBytes: number;
  /**
   * Memory the running members hold in open memory files (memfd, `/dev/shm`; held_files.ts),
   * each file once, and in System V segments the tool made (sysv_shm.ts), bytes: read on
   * full-scan rounds, the last reading counted in between.
   */
  heldFileBytes: number;
  /** Largest data segment of one member, bytes. */
  maxDataBytes: number;
  /** CPU seconds of members (reaped children included) and of members that ended. */
  cpuSeconds: number;
  /** The round visited everything it found. */
  complete: boolean;
  /** More than the tracking bound were found: the sums are lower bounds only. */
  truncated: boolean;
}

/** One round of a tracker: what it scans and walks, and its sums so far. */
export interface Round {
  scan: number[];
  /** A full-scan round: members' open memory files are read again. */
  full: boolean;
  /** Memory files counted this round, by `dev:ino` (each counted once). */
  files: Set<string>;
  /** The `/proc` listing of this round was cut by its budget. */
  cut: boolean;
  si: number;
  queue: [pid: number, parent: number][];
  qi: number;
  visited: Set<number>;
  sample: TreeSample;
  ticks: number;
}

/**
 * Clock ticks per second of `/proc/<pid>/stat` CPU times.
 *
 * @example
 * ```ts
 * import { USER_HZ } from "./tree_round.ts";
 * USER_HZ; // 100
 * ```
 */
export const USER_HZ = 100;

/**
 * A new round over `members` (and, on a full-scan round, the listed `scan` pids).
 *
 * @example
 * ```ts
 * import { newRound } from "./tree_round.ts";
 * newRound([], [42], false).queue; // [[42, -1]]
 * ```
 */
export function newRound(
  scan: number[],
  members: Iterable<number>,
  full: boolean,
  cut = false,
): Round {
  return {
    scan,
    full,
    files: new Set(),
    cut,
    si: 0,
    queue: [...members].map((p) => [p, -1]),
    qi: 0,
    visited: new Set(),
    sample: {
      processes: 0,
      rssBytes: 0,
      heldFileBytes: 0,
      maxDataBytes: 0,
      cpuSeconds: 0,
      complete: false,
      truncated: false,
    },
    ticks: 0,
  };
}
