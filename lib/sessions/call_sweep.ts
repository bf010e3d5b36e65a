/**
 * Sweeping `<stateDir>/calls`: the private directories of ordinary (non-session) command
 * calls. Each records its owning toolhost process and the call's process group
 * (lib/process call_dirs.ts). A directory whose owner is still alive is never touched —
 * whatever its age. One whose owner exited (killed mid-call: `kill -9`, SIGHUP, a crash)
 * is stale: its verified group is ended and the directory removed (stale_folder.ts rules:
 * an unverifiable group is never signalled). A directory without a readable owner record
 * is stale only once older than `ownerlessAgeMs` (it may be being created).
 *
 * @module
 */

import { CALL_DIR_NAME, CALL_RECORD_FILES, callsRoot, removeTree } from "../process/call_dirs.ts";
import { ownerIsAlive, readOwner } from "./session_dir.ts";
import { ageOf } from "./stale_folder.ts";
import { type FolderSweep, sweepFolder } from "./folder_sweep.ts";
import {
  DEFAULT_SWEEP_MS,
  folderOptions,
  type SweepOptions,
  type SweepReport,
} from "./sweep_options.ts";
import { Deadline } from "../process/proc_budget.ts";

/**
 * Whether a claimed folder (a call directory, an artifact store) is stale: its owner
 * exited, or it has no owner record and has not changed for `ownerlessAgeMs` (looked at
 * after the record was found missing: an owner removing its own folder drops the record
 * first, which makes the folder young again; one killed between making the folder and
 * claiming it leaves it ownerless for good).
 *
 * @example
 * ```ts
 * import { isStaleOwnedDir } from "./call_sweep.ts";
 * await isStaleOwnedDir("/nonexistent", 60_000); // false: nothing there
 * ```
 */
export async function isStaleOwnedDir(path: string, ownerlessAgeMs: number): Promise<boolean> {
  if ((await ageOf(path)) === null) return false;
  let owner;
  try {
    owner = await readOwner(path);
  } catch {
    return false; // its owner record is there but unreadable right now: cannot tell
  }
  if (owner === null) {
    const age = await ageOf(path);
    return age !== null && age >= ownerlessAgeMs;
  }
  return !ownerIsAlive(owner);
}

/**
 * Clean every stale call directory of a state directory into `report` (`calls`,
 * `refused`, `failed`, `problems`). Creates nothing; never rejects.
 *
 * @example
 * ```ts
 * import { sweepCalls } from "./call_sweep.ts";
 * const report = { swept: 0, active: 0, calls: 0, artifacts: 0, refused: 0, failed: 0, problems: [] };
 * await sweepCalls("/tmp/toolhost-state", {}, report);
 * console.log(report.calls);
 * ```
 */
export async function sweepCalls(
  stateDir: string,
  opts: SweepOptions,
  report: SweepReport,
  deadline: Deadline = new Deadline(opts.maxMs ?? DEFAULT_SWEEP_MS),
): Promise<void> {
  const ownerlessAgeMs = opts.ownerlessAgeMs ?? 60_000;
  const sweep: FolderSweep = {
    root: callsRoot(stateDir),
    kind: "calls",
    names: CALL_DIR_NAME,
    label: "call",
    journal: CALL_RECORD_FILES.journal,
    remove: removeTree,
    // A live call is neither cleaned nor counted as an active session.
    classify: async (path) => (await isStaleOwnedDir(path, ownerlessAgeMs) ? "stale" : "ignore"),
  };
  report.calls += await sweepFolder(sweep, folderOptions(opts, deadline), report);
}
