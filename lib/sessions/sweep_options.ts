/**
 * The options and report of a sweep (sweep.ts), and the bounds they give each folder.
 *
 * @module
 */

import { DEFAULT_GRACE_MS } from "./grace_default.ts";
import type { Terminator } from "./stale_folder.ts";
import type { FolderSweepOptions } from "./folder_sweep.ts";
import type { Deadline, ScanBudget } from "../process/proc_budget.ts";

/** Options of {@linkcode sweepSessions}. */
export interface SweepOptions {
  /** SIGTERM→SIGKILL grace for recorded groups, in ms. Default 2000. */
  graceMs?: number;
  /**
   * A root or call directory without a readable owner record is stale only after this
   * age, in ms. Default 60000.
   */
  ownerlessAgeMs?: number;
  /** Group terminator (tests inject failures). Default `terminateGroup` from lib/process. */
  terminate?: Terminator;
  /** Budget of each `/proc` scan (lib/process proc_budget.ts defaults). */
  scan?: ScanBudget;
  /** Time budget for verifying one folder's journal entries, ms. Default 10000. */
  verifyMs?: number;
  /** Most entries read from `sessions` and from `calls`. Default 10000. */
  maxEntries?: number;
  /**
   * No further folder is started after this many ms (those left are reported, and the
   * sweep fails). Default {@link DEFAULT_SWEEP_MS}.
   */
  maxMs?: number;
}

/**
 * Default time after which a sweep starts no further folder, ms.
 *
 * @example
 * ```ts
 * import { DEFAULT_SWEEP_MS } from "./sweep_options.ts";
 * DEFAULT_SWEEP_MS; // 120000
 * ```
 */
export const DEFAULT_SWEEP_MS = 120_000;

/**
 * The bounds of cleaning one state-directory folder, from a sweep's options and deadline.
 *
 * @example
 * ```ts
 * import { Deadline } from "../process/proc_budget.ts";
 * import { folderOptions } from "./sweep_options.ts";
 * folderOptions({}, new Deadline(1000)).graceMs; // 2000
 * ```
 */
export function folderOptions(opts: SweepOptions, deadline: Deadline): FolderSweepOptions {
  return {
    graceMs: opts.graceMs ?? DEFAULT_GRACE_MS,
    terminate: opts.terminate,
    scan: opts.scan,
    verifyMs: opts.verifyMs,
    maxEntries: opts.maxEntries,
    deadline,
  };
}

/** What a sweep did. */
export interface SweepReport {
  /** Stale session roots cleaned and removed. */
  swept: number;
  /** Session roots left alone (active lease and live owner, or being built). */
  active: number;
  /** Stale call directories (of a toolhost that exited mid-call) cleaned and removed. */
  calls: number;
  /** Stale artifact stores (of a registry whose process was killed) removed. */
  artifacts: number;
  /**
   * Journal entries never signalled because their identity was incomplete, malformed or
   * could not be verified (a forged or foreign record); the processes they name were
   * left alone.
   */
  refused: number;
  /** Stale folders that could not be cleaned; their journals are kept. */
  failed: number;
  /** One value-free line per failure or refusal (folder names are random, not paths). */
  problems: string[];
}
