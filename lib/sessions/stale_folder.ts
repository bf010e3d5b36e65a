/**
 * Cleaning one stale folder — a session root or a call directory whose owner is gone —
 * fail-closed, because its records may be forged (a cloned repository can ship
 * `.toolhost/state`):
 *
 * - Only journal entries with a complete identity are considered, and of those only the
 *   groups `verifyStoredGroup` finds to be `ours` (leader alive with exactly the recorded
 *   boot id and start time, carrying the group's secret tag in its environment) are
 *   signalled — and then also the processes that left such a group still carrying its tag. Incomplete, malformed, unverifiable entries and
 *   a journal that is not a regular file are never signalled: they are counted as
 *   `refused` and reported, and the processes they name are left alone.
 * - When a verified group cannot be confirmed gone, the folder and its journal are kept
 *   (a later sweep finishes the job) and the caller reports a failure.
 * - Bounded, whatever the journal holds: it is read streaming within the bounds of
 *   journal_read.ts (bytes, line length, tracked admissions; malformed lines are skipped
 *   and counted), verifying its entries takes at most `verifyMs` in all and each `/proc`
 *   scan its budget (proc_budget.ts). What a bound leaves unchecked — entries past an
 *   overfull journal, groups not seen whole or not reached in time — is never signalled
 *   and never taken for gone: the folder is kept and the failure reported.
 * - Otherwise the folder is removed — only after checking that it is a real directory
 *   directly inside the (canonical) parent it was listed from, and without following any
 *   symlink inside it. Paths never come from a record's contents.
 * - Several toolhost processes may sweep one state directory at once, and a folder's own
 *   owner may remove it while a sweep looks at it. A folder that vanishes between any two
 *   steps (ENOENT: removed, or moved out of its parent) is already cleaned — `vanished`,
 *   not a failure. A folder replaced by anything else (a symlink, a file) is refused and
 *   reported, and left alone. Sweeps in different processes may end the same verified
 *   group concurrently: every signal re-checks the group's identity first, so a second
 *   sweep only ever re-signals a group that is still the recorded one.
 *
 * Listing the state directory's folders and cleaning many of them is folder_sweep.ts.
 *
 * @module
 */

import { lstat, realpath } from "node:fs/promises";
import { basename, join } from "node:path";
import {
  terminateGroup,
  type TerminateOptions,
  type TerminateReport,
  verifyStoredGroup,
} from "../process/kill_group.ts";
import type { ProcessRecord } from "../process/proc_identity.ts";
import { reapEscapesConfirmed } from "../process/escape_reaper.ts";
import { MAX_JOURNAL_GROUPS, readJournalFile } from "./journal_read.ts";
import { moveToTrash } from "./trash.ts";
import { Deadline, DEFAULT_SCAN_MS, type ScanBudget } from "../process/proc_budget.ts";

/** Ends one verified group (tests inject failures). */
export type Terminator = (
  record: ProcessRecord,
  options: TerminateOptions,
) => Promise<TerminateReport>;

/** A stale folder to clean. */
export interface StaleFolder {
  /** Canonical path of the folder it was listed from (`sessions` or `calls`). */
  parent: string;
  /** Its name in `parent` (already checked against the folder-name pattern). */
  name: string;
  /** Its journal file's name. */
  journal: string;
  /** Removes the folder (it is confined to `parent` when this is called). */
  remove: (path: string) => Promise<void>;
  /**
   * The folder is a `<name>.trash` left by a toolhost killed while removing it (trash.ts):
   * it is removed at once, nothing in it is read. Default false.
   */
  trash?: boolean;
}

/** How cleaning went. */
export interface StaleOutcome {
  /** The folder was removed. */
  removed: boolean;
  /**
   * The folder was already gone when this sweep came to it (another sweep, or its own
   * owner, removed it first): it is cleaned, not a failure.
   */
  vanished?: boolean;
  /** Journal entries never signalled (see the module documentation). */
  refused: number;
  /** Journal lines skipped as malformed (journal_read.ts), when there were any. */
  malformed?: number;
  /** Why it was kept (value-free), when it was. */
  problem?: string;
}

/** Options of {@linkcode cleanStaleFolder}. */
export interface StaleOptions {
  /** SIGTERM→SIGKILL grace, ms. */
  graceMs: number;
  /** Group terminator. Default `terminateGroup`. */
  terminate?: Terminator;
  /** Budget of each `/proc` scan (proc_budget.ts defaults). */
  scan?: ScanBudget;
  /**
   * Time budget for verifying one folder's journal entries, ms. Default
   * {@link DEFAULT_VERIFY_MS}. Entries not verified in time are neither signalled nor taken
   * for gone: the folder is kept and the failure reported.
   */
  verifyMs?: number;
}

/**
 * Default time budget for verifying one folder's journal entries, ms.
 *
 * @example
 * ```ts
 * import { DEFAULT_VERIFY_MS } from "./stale_folder.ts";
 * DEFAULT_VERIFY_MS; // 10000
 * ```
 */
export const DEFAULT_VERIFY_MS = 10_000;

const inProgress = new Map<string, Promise<StaleOutcome>>();

/**
 * Clean one stale folder (see the module documentation). Concurrent calls in one process
 * for the same folder share the work; never rejects.
 *
 * @example
 * ```ts
 * import { cleanStaleFolder } from "./stale_folder.ts";
 * import { removeTree } from "../process/call_dirs.ts";
 * const r = await cleanStaleFolder(
 *   { parent: "/tmp/state/calls", name: "0123456789abcdef01234567", journal: "journal.jsonl", remove: removeTree },
 *   { graceMs: 2000 },
 * );
 * console.log(r.removed, r.vanished, r.refused);
 * ```
 */
export function cleanStaleFolder(folder: StaleFolder, opts: StaleOptions): Promise<StaleOutcome> {
  const path = join(folder.parent, folder.name);
  let task = inProgress.get(path);
  if (task === undefined) {
    task = cleanOnce(folder, path, opts)
      .catch(() => ({ removed: false, refused: 0, problem: "it could not be cleaned" }))
      .finally(() => inProgress.delete(path));
    inProgress.set(path, task);
  }
  return task;
}

const NOT_CONFINED = "it is not a directory inside the state directory";

/** Attempts at removing a folder that another sweep may be removing at the same time. */
const REMOVE_ATTEMPTS = 3;

async function cleanOnce(f: StaleFolder, path: string, opts: StaleOptions): Promise<StaleOutcome> {
  if (f.trash === true) return await removeConfined(f, 0);
  const before = await placeOf(f.parent, f.name);
  if (before !== "confined") return settled(before, 0);
  let journal;
  try {
    journal = await readJournalFile(join(path, f.journal));
  } catch {
    const now = await placeOf(f.parent, f.name);
    if (now !== "confined") return settled(now, 0);
    return { removed: false, refused: 0, problem: "its journal could not be read; it was kept" };
  }
  let refused = journal.rejected + (journal.refusedFile ? 1 : 0);
  const verified: ProcessRecord[] = [];
  let unchecked = 0;
  const deadline = new Deadline(opts.verifyMs ?? DEFAULT_VERIFY_MS);
  for (const e of journal.entries) {
    const left = deadline.left();
    const maxMs = Math.min(left, opts.scan?.maxMs ?? DEFAULT_SCAN_MS);
    const verdict = left > 0 ? verifyStoredGroup(e.record, { ...opts.scan, maxMs }) : "unconfirmed";
    if (verdict === "ours") verified.push(e.record);
    else if (verdict === "unconfirmed") unchecked++;
    else if (verdict !== "gone") refused++;
  }
  const terminate = opts.terminate ?? endStoredGroup;
  const reports = await Promise.all(
    verified.map((r) =>
      terminate(r, { graceMs: opts.graceMs, scan: opts.scan }).catch(() => ({ confirmed: false }))
    ),
  );
  const malformed = journal.malformed;
  const kept = (problem: string) => ({ removed: false, refused, malformed, problem });
  const unconfirmed = reports.filter((r) => !r.confirmed).length;
  if (unconfirmed > 0) {
    return kept(
      `${unconfirmed} recorded process group(s) could not be confirmed gone; its journal was kept`,
    );
  }
  if (unchecked > 0) {
    return kept(
      `${unchecked} recorded process group(s) could not be checked within the scan budget (or were just starting); its journal was kept — sweep again`,
    );
  }
  if (journal.overfull) {
    return kept(
      `its journal names more than ${MAX_JOURNAL_GROUPS} unfinished process groups; only the first were checked and it was kept — remove the folder once you know nothing it names runs`,
    );
  }
  return { ...(await removeConfined(f, refused)), malformed };
}

/**
 * End a verified stored group, then every process that left it (`setsid`) still carrying
 * its tag: a crashed toolhost could not reap those itself.
 */
async function endStoredGroup(
  record: ProcessRecord,
  options: TerminateOptions,
): Promise<TerminateReport> {
  const report = await terminateGroup(record, options);
  if (!report.confirmed || record.tag === undefined) return report;
  const { tag, pid, startTime } = record;
  const reaped = await reapEscapesConfirmed({ tag, pid, startTime }, 2000, options.scan);
  return { ...report, confirmed: reaped };
}

/**
 * Remove the folder once it is checked to be confined: renamed to `<name>.trash` first
 * (trash.ts), so that a toolhost killed while removing it leaves a folder any sweep removes
 * at once. A folder that vanishes meanwhile (another sweep removed it) is cleaned, one
 * replaced by something else is refused.
 */
async function removeConfined(f: StaleFolder, refused: number): Promise<StaleOutcome> {
  const first = await placeOf(f.parent, f.name);
  if (first !== "confined") return settled(first, refused);
  const target = await moveToTrash(join(f.parent, f.name));
  if (target === null) return settled("gone", refused);
  const name = basename(target);
  for (let attempt = 0; attempt < REMOVE_ATTEMPTS; attempt++) {
    const place = await placeOf(f.parent, name);
    if (place !== "confined") return settled(place, refused);
    try {
      await f.remove(target);
      return { removed: true, refused };
    } catch {
      // Another sweep removing the same tree can make this one trip; look again.
    }
  }
  const place = await placeOf(f.parent, name);
  if (place !== "confined") return settled(place, refused);
  return { removed: false, refused, problem: "its directory could not be removed" };
}

/** The outcome for a folder found not to be confined (any more). */
function settled(place: "gone" | "foreign", refused: number): StaleOutcome {
  return place === "gone"
    ? { removed: false, vanished: true, refused }
    : { removed: false, refused, problem: NOT_CONFINED };
}

/**
 * Where `parent/name` stands: `confined` — a real directory (not a symlink) whose
 * canonical path is exactly `parent/name`; `gone` — no entry by that name any more
 * (ENOENT at any step: removed or moved away); `foreign` — anything else (a symlink, a
 * file, a path that resolves elsewhere, an unreadable entry), which is never touched.
 */
async function placeOf(parent: string, name: string): Promise<"confined" | "gone" | "foreign"> {
  const path = join(parent, name);
  try {
    if (!(await lstat(path)).isDirectory()) return "foreign";
    return (await realpath(path)) === path ? "confined" : "foreign";
  } catch (e) {
    return (e as { code?: string }).code === "ENOENT" ? "gone" : "foreign";
  }
}

/**
 * How long ago (ms) a folder last changed, or null when it is gone or not a folder.
 *
 * @example
 * ```ts
 * import { ageOf } from "./stale_folder.ts";
 * await ageOf("/nonexistent"); // null
 * ```
 */
export async function ageOf(path: string): Promise<number | null> {
  try {
    const st = await lstat(path);
    return st.isDirectory() ? Date.now() - st.mtimeMs : null;
  } catch {
    return null;
  }
}
