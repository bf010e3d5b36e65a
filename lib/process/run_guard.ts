/**
 * The hook through which resource limits (lib/limits) reach a process group without
 * lib/process knowing how they are enforced: the guard rewrites the command line
 * (e.g. `prlimit ... -- cmd`, or a cgroup join), watches the spawned group, asks for the
 * run to end on a breach, and after the group is gone says which limit (if any) ended it.
 *
 * @module
 */

import type { ProcessRecord } from "./proc_identity.ts";

/** A limit that can end a run. */
export type GuardLimit = "memory" | "cpu" | "processes";

/** How the group's leader ended, as the guard sees it when settling. */
export interface GuardExit {
  /** Exit status, or null. */
  exitCode: number | null;
  /** Ending signal such as `SIGKILL`, or null. */
  signal: string | null;
}

/** Enforcement of one run's limits. */
export interface RunGuard {
  /** The program and argv to spawn instead of `command` and `args`. */
  wrap(command: string, args: readonly string[]): { command: string; args: string[] };
  /**
   * Start watching the spawned group and everything it starts (`tag`: the group's random
   * tag, `_TOOLHOST_GROUP_TAG` in its environment, which finds descendants re-parented
   * away). `breach(kind)` ends the run at once (the guard has already killed every
   * process it counted; the caller kills the group without grace). Called at most once
   * per guard.
   */
  watch(record: ProcessRecord, breach: (kind: GuardLimit) => void, tag?: string): void;
  /**
   * Called once the group is gone (or never started): stop watching, kill whatever
   * descendant of the run is still alive, release what the guard created (a cgroup), and
   * return the limit that ended the run, if any. Never rejects.
   */
  settle(exit: GuardExit): Promise<GuardLimit | null>;
}
