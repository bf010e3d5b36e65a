/**
 * Crash recovery: clean session roots whose owner has exited (zombies included) or whose
 * lease was released after a failed cleanup. Recorded groups are ended only after their
 * pid and start time still match (lib/process identity rules); a root is removed only
 * once all of them are confirmed gone, otherwise its journal is kept. Roots with an active
 * lease and a live owner belong to a running registry and are left alone.
 *
 * @module
 */

import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import {
  terminateGroup,
  type TerminateOptions,
  type TerminateReport,
} from "../process/kill_group.ts";
import type { ProcessRecord } from "../process/proc_identity.ts";
import { readJournal } from "./journal.ts";
import { DEFAULT_GRACE_MS } from "./options.ts";
import {
  hasLease,
  ownerIsAlive,
  readOwner,
  RECORD_FILES,
  removeSessionRoot,
  ROOT_NAME,
  sessionsRoot,
} from "./session_dir.ts";

/** Options of {@linkcode sweepSessions}. */
export interface SweepOptions {
  /** SIGTERM→SIGKILL grace for recorded groups, in ms. Default 2000. */
  graceMs?: number;
  /** A root without a readable owner record is stale only after this age, in ms. Default 60000. */
  ownerlessAgeMs?: number;
  /** Group terminator (tests inject failures). Default `terminateGroup` from lib/process. */
  terminate?: (record: ProcessRecord, options: TerminateOptions) => Promise<TerminateReport>;
}

/** What a sweep did. */
export interface SweepReport {
  /** Stale roots cleaned and removed. */
  swept: number;
  /** Roots left alone (active lease and live owner, or being built). */
  active: number;
  /** Stale roots that could not be cleaned; their journals are kept. */
  failed: number;
  /** One value-free line per failure (root names are random, not paths). */
  problems: string[];
}

type Verdict = "active" | "stale" | "ignore";

async function classify(path: string, name: string, ownerlessAgeMs: number): Promise<Verdict> {
  let st;
  try {
    st = await lstat(path);
  } catch {
    return "ignore";
  }
  if (!st.isDirectory()) return "ignore";
  const owner = await readOwner(path);
  if (owner === null) {
    const young = Date.now() - st.mtimeMs < ownerlessAgeMs;
    return young ? "active" : "stale";
  }
  const alive = ownerIsAlive(owner);
  if (name.endsWith(".tmp")) return alive ? "active" : "stale";
  return alive && (await hasLease(path)) ? "active" : "stale";
}

const inProgress = new Map<string, Promise<string | null>>();

/** Clean one stale root; resolves to a problem line, or null when removed. */
function cleanRoot(path: string, name: string, opts: SweepOptions): Promise<string | null> {
  let task = inProgress.get(path);
  if (task === undefined) {
    task = cleanRootOnce(path, name, opts).finally(() => inProgress.delete(path));
    inProgress.set(path, task);
  }
  return task;
}

async function cleanRootOnce(
  path: string,
  name: string,
  opts: SweepOptions,
): Promise<string | null> {
  const terminate = opts.terminate ?? terminateGroup;
  let entries;
  try {
    entries = await readJournal(join(path, RECORD_FILES.journal));
  } catch {
    return `session ${name}: its journal could not be read; it was kept`;
  }
  const graceMs = opts.graceMs ?? DEFAULT_GRACE_MS;
  const reports = await Promise.all(
    entries.map((e) => terminate(e.record, { graceMs }).catch(() => ({ confirmed: false }))),
  );
  const unconfirmed = reports.filter((r) => !r.confirmed).length;
  if (unconfirmed > 0) {
    return `session ${name}: ${unconfirmed} recorded process group(s) could not be confirmed gone; its journal was kept`;
  }
  try {
    await removeSessionRoot(path);
    return null;
  } catch {
    return `session ${name}: its directory could not be removed`;
  }
}

/**
 * Sweep `<stateDir>/sessions`: clean every stale root, leave active ones alone. Creates
 * nothing; a missing sessions folder is an empty sweep. Concurrent sweeps in one process
 * share the work on a root; sweeps in different processes are idempotent.
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
  const report: SweepReport = { swept: 0, active: 0, failed: 0, problems: [] };
  const parent = sessionsRoot(stateDir);
  let names: string[];
  try {
    names = await readdir(parent);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return report;
    report.failed++;
    report.problems.push("the state directory's sessions folder could not be read");
    return report;
  }
  const ownerlessAgeMs = opts.ownerlessAgeMs ?? 60_000;
  await Promise.all(
    names.filter((n) => ROOT_NAME.test(n)).map(async (name) => {
      const path = join(parent, name);
      const verdict = await classify(path, name, ownerlessAgeMs);
      if (verdict === "ignore") return;
      if (verdict === "active") {
        report.active++;
        return;
      }
      const problem = await cleanRoot(path, name, opts);
      if (problem === null) report.swept++;
      else {
        report.failed++;
        report.problems.push(problem);
      }
    }),
  );
  report.problems.sort();
  return report;
}
