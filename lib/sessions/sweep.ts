/**
 * Crash recovery: clean session roots whose owner has exited (zombies included) or whose
 * lease was released after a failed cleanup, and call directories whose owner has exited
 * (call_sweep.ts). Roots with an active lease and a live owner, and calls of a live
 * owner, belong to a running toolhost and are left alone.
 *
 * The state directory may be forged (it defaults to `<workspace>/.toolhost/state`, so a
 * cloned repository can ship one), so cleaning is fail-closed (stale_folder.ts): a
 * recorded group is signalled only when its leader is alive with exactly the recorded
 * boot id and start time; incomplete or unverifiable entries are never signalled — they
 * are counted in `refused` and reported, and their folder is removed (nothing in it can
 * be acted on). A folder is removed only once every verified group is confirmed gone,
 * otherwise its journal is kept and the sweep fails. Folders are only ever found by
 * listing `sessions` and `calls` (real directories, never symlinks) and matching their
 * strict name patterns; no path is ever taken from a record. A folder is renamed to
 * `<name>.trash` before it is removed (trash.ts); such a leftover of a toolhost killed
 * while removing it is removed by the next sweep at once, and nothing in it is read.
 * Every step is bounded (folder_sweep.ts, stale_folder.ts, journal_read.ts): entries
 * listed, journal bytes and lines, `/proc` scans, verification time, and the sweep's own
 * time; whatever a bound leaves out is reported as a failure, never as clean.
 *
 * @module
 */

import { lstat } from "node:fs/promises";
import { sweepCalls } from "./call_sweep.ts";
import {
  hasLease,
  ownerElsewhere,
  ownerIsAlive,
  readOwner,
  RECORD_FILES,
  removeSessionRoot,
  ROOT_NAME,
  sessionsRoot,
} from "./session_dir.ts";
import { ageOf } from "./stale_folder.ts";
import { type FolderSweep, sweepFolder } from "./folder_sweep.ts";
import { sweepArtifactStores } from "./artifact_sweep.ts";
import { Deadline } from "../process/proc_budget.ts";
import {
  DEFAULT_SWEEP_MS,
  folderOptions,
  type SweepOptions,
  type SweepReport,
} from "./sweep_options.ts";

export {
  DEFAULT_SWEEP_MS,
  folderOptions,
  type SweepOptions,
  type SweepReport,
} from "./sweep_options.ts";

type Verdict = "active" | "stale" | "ignore";

/**
 * A root's state. The lease is read before the owner record because an owner removing
 * its own root drops the owner record before the lease (session_dir.ts): a live owner's
 * root is then seen either with both, or without an owner record — and a root without an
 * owner record is judged by a fresh look at its age, taken after the record was found
 * missing, so the owner's own removal (which just changed the folder) keeps it young.
 * A root that vanishes meanwhile is ignored.
 */
async function classify(path: string, name: string, ownerlessAgeMs: number): Promise<Verdict> {
  if (!(await isDirectory(path))) return "ignore";
  const lease = await hasLease(path);
  let owner;
  try {
    owner = await readOwner(path);
  } catch {
    return "active"; // its owner record is there but unreadable right now: cannot tell
  }
  if (owner === null) {
    const age = await ageOf(path);
    if (age === null) return "ignore";
    return age < ownerlessAgeMs ? "active" : "stale";
  }
  // Another container's: whether it runs, or holds a lease, is its own toolhosts' business.
  if (ownerElsewhere(owner)) return "active";
  const alive = ownerIsAlive(owner);
  if (name.endsWith(".tmp")) return alive ? "active" : "stale";
  return alive && lease ? "active" : "stale";
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function sweepRoots(
  stateDir: string,
  opts: SweepOptions,
  report: SweepReport,
  deadline: Deadline,
) {
  const ownerlessAgeMs = opts.ownerlessAgeMs ?? 60_000;
  const sweep: FolderSweep = {
    root: sessionsRoot(stateDir),
    kind: "sessions",
    names: ROOT_NAME,
    label: "session",
    journal: RECORD_FILES.journal,
    remove: removeSessionRoot,
    classify: (path, name) => classify(path, name, ownerlessAgeMs),
  };
  report.swept += await sweepFolder(sweep, folderOptions(opts, deadline), report);
}

/**
 * Sweep `<stateDir>/sessions`, `<stateDir>/calls` and `<stateDir>/artifacts`
 * (artifact_sweep.ts): clean every stale folder, leave
 * active ones alone. Creates nothing; missing folders make an empty sweep. Concurrent
 * sweeps in one process share the work on a folder; sweeps in different processes are
 * idempotent. Never rejects.
 *
 * @example
 * ```ts
 * import { sweepSessions } from "./sweep.ts";
 * const report = await sweepSessions("/tmp/toolhost-state");
 * if (report.failed > 0) console.error(report.problems.join("\n"));
 * ```
 */
export async function sweepSessions(
  stateDir: string,
  opts: SweepOptions = {},
): Promise<SweepReport> {
  const report: SweepReport = {
    swept: 0,
    active: 0,
    calls: 0,
    artifacts: 0,
    refused: 0,
    failed: 0,
    problems: [],
  };
  const deadline = new Deadline(opts.maxMs ?? DEFAULT_SWEEP_MS);
  await Promise.all([
    sweepRoots(stateDir, opts, report, deadline),
    sweepCalls(stateDir, opts, report, deadline),
    sweepArtifactStores(stateDir, opts, report, deadline),
  ]);
  report.problems.sort();
  return report;
}
