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
 * @module
 */

import { lstat, readdir, realpath } from "node:fs/promises";
import { basename, join } from "node:path";
import {
  terminateGroup,
  type TerminateOptions,
  type TerminateReport,
  verifyStoredGroup,
} from "../process/kill_group.ts";
import type { ProcessRecord } from "../process/proc_identity.ts";
import { reapEscapesConfirmed } from "../process/escape_reaper.ts";
import { readJournalFile } from "./journal.ts";
import { isTrash, moveToTrash } from "./trash.ts";

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
  /** Why it was kept (value-free), when it was. */
  problem?: string;
}

/** Options of {@linkcode cleanStaleFolder}. */
export interface StaleOptions {
  /** SIGTERM→SIGKILL grace, ms. */
  graceMs: number;
  /** Group terminator. Default `terminateGroup`. */
  terminate?: Terminator;
}

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
  for (const e of journal.entries) {
    const verdict = verifyStoredGroup(e.record);
    if (verdict === "ours") verified.push(e.record);
    else if (verdict !== "gone") refused++;
  }
  const terminate = opts.terminate ?? endStoredGroup;
  const reports = await Promise.all(
    verified.map((r) =>
      terminate(r, { graceMs: opts.graceMs }).catch(() => ({ confirmed: false }))
    ),
  );
  const unconfirmed = reports.filter((r) => !r.confirmed).length;
  if (unconfirmed > 0) {
    return {
      removed: false,
      refused,
      problem:
        `${unconfirmed} recorded process group(s) could not be confirmed gone; its journal was kept`,
    };
  }
  return await removeConfined(f, refused);
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
  return { ...report, confirmed: await reapEscapesConfirmed({ tag, pid, startTime }) };
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

/** The counters of a sweep report that {@link cleanAndReport} keeps. */
export interface SweepTally {
  /** Journal entries that could not be verified (nothing signalled). */
  refused: number;
  /** Folders that could not be cleaned. */
  failed: number;
  /** Value-free problem lines. */
  problems: string[];
}

/**
 * {@link cleanStaleFolder}, with its outcome added to `tally` under `what` (e.g.
 * `session 0123…`); resolves to whether the folder was removed.
 */
async function cleanAndReport(
  tally: SweepTally,
  what: string,
  folder: StaleFolder,
  opts: StaleOptions,
): Promise<boolean> {
  const r = await cleanStaleFolder(folder, opts);
  tally.refused += r.refused;
  if (r.refused > 0) tally.problems.push(refusedLine(what, r.refused));
  if (!r.removed && !r.vanished) {
    tally.failed++;
    tally.problems.push(`${what}: ${r.problem}`);
  }
  return r.removed;
}

function refusedLine(what: string, refused: number): string {
  return `${what}: ${refused} journal entr${
    refused === 1 ? "y" : "ies"
  } could not be verified as toolhost's own process group(s): nothing was signalled and the processes they name were left alone`;
}

/** One folder of the state directory to sweep (`sessions` or `calls`). */
export interface FolderSweep {
  /** The folder (`<state>/sessions` or `<state>/calls`). */
  root: string;
  /** Which one, for messages. */
  kind: StateFolder;
  /** Names of entries that may be swept; others are left alone. */
  names: RegExp;
  /** What an entry is called in problem lines (`session`, `call`). */
  label: string;
  /** The journal file's name in an entry. */
  journal: string;
  /** Removes an entry. */
  remove: (path: string) => Promise<void>;
  /** An entry's state: left alone, counted as active, or stale (to clean). */
  classify: (path: string, name: string) => Promise<"ignore" | "active" | "stale">;
}

/**
 * List `sweep.root` and clean every stale entry, adding to `tally`; resolves to how many
 * entries were removed.
 *
 * @example
 * ```ts
 * import { sweepFolder } from "./stale_folder.ts";
 * // report.calls += await sweepFolder(callSweep, { graceMs: 2000 }, report);
 * ```
 */
export async function sweepFolder(
  sweep: FolderSweep,
  opts: StaleOptions,
  tally: SweepTally & { active: number },
): Promise<number> {
  const listing = await listStateFolder(sweep.root, sweep.kind);
  if (listing === null) return 0;
  if ("problem" in listing) {
    tally.failed++;
    tally.problems.push(listing.problem);
    return 0;
  }
  const names = listing.names.filter((n) => sweep.names.test(n) || isTrash(n, sweep.names));
  const removed = await Promise.all(
    names.map((n) => sweepEntry(sweep, listing.real, n, opts, tally)),
  );
  return removed.filter((r) => r).length;
}

/** Classify and clean one listed entry; resolves to whether it was removed. A `.trash`
 * entry (trash.ts) is removed at once, without reading anything in it. */
async function sweepEntry(
  sweep: FolderSweep,
  parent: string,
  name: string,
  opts: StaleOptions,
  tally: SweepTally & { active: number },
): Promise<boolean> {
  const folder = { parent, name, journal: sweep.journal, remove: sweep.remove };
  const what = `${sweep.label} ${name}`;
  if (isTrash(name, sweep.names)) {
    return await cleanAndReport(tally, what, { ...folder, trash: true }, opts);
  }
  const verdict = await sweep.classify(join(parent, name), name);
  if (verdict === "active") tally.active++;
  if (verdict !== "stale") return false;
  return await cleanAndReport(tally, what, folder, opts);
}

/** Which folder of the state directory a listing is for. */
export type StateFolder = "sessions" | "calls";

/**
 * List a state-directory folder (`sessions` or `calls`): its canonical path and entry
 * names, `null` when it does not exist, or a problem when it is not a real directory.
 *
 * @example
 * ```ts
 * import { listStateFolder } from "./stale_folder.ts";
 * await listStateFolder("/nonexistent/sessions", "sessions"); // null
 * ```
 */
export async function listStateFolder(
  path: string,
  what: StateFolder,
): Promise<{ real: string; names: string[] } | { problem: string } | null> {
  try {
    if (!(await lstat(path)).isDirectory()) {
      return { problem: `the state directory's ${what} folder is not a directory; remove it` };
    }
    return { real: await realpath(path), names: await readdir(path) };
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return null;
    return { problem: `the state directory's ${what} folder could not be read` };
  }
}
