/**
 * Sweeping one folder of the state directory (`sessions` or `calls`), bounded, because the
 * state directory may be forged (a cloned repository can ship `.toolhost/state`): at most
 * `maxEntries` directory entries are read (default {@link MAX_STATE_ENTRIES}), at most
 * `concurrency` folders are cleaned at a time (default {@link SWEEP_CONCURRENCY}), and no
 * folder is started once the sweep's deadline has passed. Whatever a bound leaves out is
 * reported as a failure — the sweep is incomplete, never "clean".
 *
 * @module
 */

import { lstat, opendir, realpath } from "node:fs/promises";
import { join } from "node:path";
import type { Deadline } from "../process/proc_budget.ts";
import { cleanStaleFolder, type StaleFolder, type StaleOptions } from "./stale_folder.ts";
import { isTrash } from "./trash.ts";

/**
 * Default entry budget of one state-directory folder listing (toolhost leaves a folder
 * only behind a crash, so a real one holds a handful).
 *
 * @example
 * ```ts
 * import { MAX_STATE_ENTRIES } from "./folder_sweep.ts";
 * MAX_STATE_ENTRIES; // 10000
 * ```
 */
export const MAX_STATE_ENTRIES = 10_000;

/**
 * Default number of folders cleaned at once.
 *
 * @example
 * ```ts
 * import { SWEEP_CONCURRENCY } from "./folder_sweep.ts";
 * SWEEP_CONCURRENCY; // 8
 * ```
 */
export const SWEEP_CONCURRENCY = 8;

/** The counters of a sweep report that {@link sweepFolder} keeps. */
export interface SweepTally {
  /** Journal entries that could not be verified (nothing signalled). */
  refused: number;
  /** Folders that could not be cleaned. */
  failed: number;
  /** Value-free problem lines. */
  problems: string[];
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

/** Options of {@linkcode sweepFolder}. */
export interface FolderSweepOptions extends StaleOptions {
  /** Most directory entries read from the folder. Default {@link MAX_STATE_ENTRIES}. */
  maxEntries?: number;
  /** Folders cleaned at once. Default {@link SWEEP_CONCURRENCY}. */
  concurrency?: number;
  /** No folder is started after this (shared by a whole sweep). Default: none. */
  deadline?: Deadline;
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
  if ((r.malformed ?? 0) > 0) {
    tally.problems.push(`${what}: ${r.malformed} malformed journal line(s) were skipped`);
  }
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

/**
 * List `sweep.root` and clean every stale entry, adding to `tally`; resolves to how many
 * entries were removed. Bounded (see the module documentation); what a bound leaves out
 * is counted in `failed` with a problem line.
 *
 * @example
 * ```ts
 * import { sweepFolder } from "./folder_sweep.ts";
 * // report.calls += await sweepFolder(callSweep, { graceMs: 2000 }, report);
 * ```
 */
export async function sweepFolder(
  sweep: FolderSweep,
  opts: FolderSweepOptions,
  tally: SweepTally & { active: number },
): Promise<number> {
  const maxEntries = opts.maxEntries ?? MAX_STATE_ENTRIES;
  const keep = (n: string) => sweep.names.test(n) || isTrash(n, sweep.names);
  const listing = await listStateFolder(sweep.root, sweep.kind, { maxEntries, keep });
  if (listing === null) return 0;
  if ("problem" in listing) {
    tally.failed++;
    tally.problems.push(listing.problem);
    return 0;
  }
  if (listing.cut) {
    tally.failed++;
    tally.problems.push(
      `the state directory's ${sweep.kind} folder has more than ${maxEntries} entries: only the first were looked at; remove what you do not need and sweep again`,
    );
  }
  const names = listing.names;
  let next = 0;
  let removed = 0;
  let late = 0;
  const worker = async () => {
    while (next < names.length) {
      const name = names[next++];
      if (opts.deadline?.passed()) {
        late++;
        continue;
      }
      if (await sweepEntry(sweep, listing.real, name, opts, tally)) removed++;
    }
  };
  const workers = Math.max(1, opts.concurrency ?? SWEEP_CONCURRENCY);
  await Promise.all(Array.from({ length: Math.min(workers, names.length) }, worker));
  if (late > 0) {
    tally.failed++;
    tally.problems.push(
      `${late} ${sweep.label} folder(s) were not looked at: the sweep ran out of time; sweep again`,
    );
  }
  return removed;
}

/** Classify and clean one listed entry; resolves to whether it was removed. A `.trash`
 * entry (trash.ts) is removed at once, without reading anything in it. An entry that is
 * not a real folder (a symlink, a file: toolhost makes only folders there, so it was
 * planted) is not toolhost's and is left alone — not a failure either, which would refuse
 * every session start of the workspace. */
async function sweepEntry(
  sweep: FolderSweep,
  parent: string,
  name: string,
  opts: StaleOptions,
  tally: SweepTally & { active: number },
): Promise<boolean> {
  if (!(await isRealFolder(join(parent, name)))) return false;
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

/** `path` is a folder, not a symlink (nor gone). */
async function isRealFolder(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Which folder of the state directory a listing is for. */
export type StateFolder = "sessions" | "calls" | "artifacts";

/** Options of {@linkcode listStateFolder}. */
export interface ListOptions {
  /** Most directory entries read. Default {@link MAX_STATE_ENTRIES}. */
  maxEntries?: number;
  /** Which names are kept. Default all. */
  keep?: (name: string) => boolean;
}

/**
 * List a state-directory folder (`sessions` or `calls`), reading at most `maxEntries`
 * entries: its canonical path, the kept entry names and whether the listing was cut;
 * `null` when it does not exist, or a problem when it is not a real directory.
 *
 * @example
 * ```ts
 * import { listStateFolder } from "./folder_sweep.ts";
 * await listStateFolder("/nonexistent/sessions", "sessions"); // null
 * ```
 */
export async function listStateFolder(
  path: string,
  what: StateFolder,
  opts: ListOptions = {},
): Promise<{ real: string; names: string[]; cut: boolean } | { problem: string } | null> {
  const maxEntries = opts.maxEntries ?? MAX_STATE_ENTRIES;
  try {
    if (!(await lstat(path)).isDirectory()) {
      return { problem: `the state directory's ${what} folder is not a directory; remove it` };
    }
    const real = await realpath(path);
    const names: string[] = [];
    let seen = 0;
    let cut = false;
    const dir = await opendir(real, { bufferSize: 256 });
    try {
      for (let e = await dir.read(); e !== null; e = await dir.read()) {
        if (++seen > maxEntries) {
          cut = true;
          break;
        }
        if (opts.keep?.(e.name) ?? true) names.push(e.name);
      }
    } finally {
      await dir.close();
    }
    return { real, names, cut };
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOENT") return null;
    // The cause, never the path: a --state-dir naming a file is the likely one.
    const why = code === "ENOTDIR"
      ? ": the state directory is not a directory"
      : ` (${code ?? "unknown error"})`;
    return { problem: `the state directory's ${what} folder could not be read${why}` };
  }
}
