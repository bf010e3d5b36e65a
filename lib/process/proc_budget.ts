/**
 * Bounded scans of `/proc`: every loop over the process table takes an entry budget and a
 * time budget, so a fork storm (or a forged journal that names many groups) cannot make
 * one scan slow or memory-hungry. A scan that runs out of either budget is reported as
 * incomplete (`complete: false`), and every caller treats an incomplete view fail-closed:
 * a group it could not see whole is *unconfirmed* — never "gone", never "clean".
 *
 * @module
 */

import { opendirSync } from "node:fs";

/**
 * Default entry budget of one scan: most directory entries read (Linux's own
 * `PID_MAX_LIMIT` is 2^22; a typical system has a few hundred to a few thousand).
 *
 * @example
 * ```ts
 * import { DEFAULT_SCAN_ENTRIES } from "./proc_budget.ts";
 * DEFAULT_SCAN_ENTRIES; // 65536
 * ```
 */
export const DEFAULT_SCAN_ENTRIES = 65_536;

/**
 * Default time budget of one scan, in ms (listing and per-entry work together). A scan of
 * a few thousand processes takes a few milliseconds; the budget only bites on a fork storm
 * or a starved machine, and then the scan reports itself incomplete.
 *
 * @example
 * ```ts
 * import { DEFAULT_SCAN_MS } from "./proc_budget.ts";
 * DEFAULT_SCAN_MS; // 5000
 * ```
 */
export const DEFAULT_SCAN_MS = 5_000;

/** The budgets of one scan. */
export interface ScanBudget {
  /** Most directory entries read (numeric or not). Default {@link DEFAULT_SCAN_ENTRIES}. */
  maxEntries?: number;
  /** Longest the scan runs, ms, visits included. Default {@link DEFAULT_SCAN_MS}. */
  maxMs?: number;
  /** The directory listed. Default `/proc` (tests point it at a fake one). */
  dir?: string;
}

/** How a scan ended. */
export interface ScanOutcome {
  /** True when every entry was visited (or the visitor stopped the scan itself). */
  complete: boolean;
  /** Which budget ran out, when one did. */
  cut?: "entries" | "time";
  /** Numeric entries visited. */
  visited: number;
}

/** Time is checked every this many entries (a clock read per entry costs more than it saves). */
const CLOCK_EVERY = 32;

/**
 * Call `visit` with every numeric entry of `/proc` (every process id), within `budget`.
 * `visit` may return `false` to stop the scan early (it is then complete: the caller has
 * what it needs). Never throws: an unreadable `/proc` is an empty, complete scan — there
 * is nothing to see, as on a system without `/proc`.
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { scanPids } from "./proc_budget.ts";
 * let seen = false;
 * const out = scanPids((pid) => { seen ||= pid === process.pid; });
 * console.log(out.complete, seen); // true true (on Linux)
 * ```
 */
export function scanPids(
  visit: (pid: number) => boolean | void,
  budget: ScanBudget = {},
): ScanOutcome {
  const maxEntries = budget.maxEntries ?? DEFAULT_SCAN_ENTRIES;
  const deadline = performance.now() + (budget.maxMs ?? DEFAULT_SCAN_MS);
  let dir;
  try {
    dir = opendirSync(budget.dir ?? "/proc", { bufferSize: 256 });
  } catch {
    return { complete: true, visited: 0 };
  }
  let entries = 0;
  let visited = 0;
  try {
    for (let e = dir.readSync(); e !== null; e = dir.readSync()) {
      if (entries % CLOCK_EVERY === 0 && performance.now() >= deadline) {
        return { complete: false, cut: "time", visited };
      }
      if (++entries > maxEntries) return { complete: false, cut: "entries", visited };
      const c = e.name.charCodeAt(0);
      if (c < 48 || c > 57) continue;
      const pid = Number(e.name);
      if (!Number.isSafeInteger(pid)) continue;
      visited++;
      if (visit(pid) === false) break;
    }
  } catch {
    // The listing broke off (the directory went away): what was not read was not seen.
    return { complete: false, visited };
  } finally {
    dir.closeSync();
  }
  return { complete: true, visited };
}

/**
 * A deadline shared by several steps of one piece of work (the rounds of a reaper, the
 * probes of a pid range): `left()` is the time budget that remains for the next scan.
 *
 * @example
 * ```ts
 * import { Deadline } from "./proc_budget.ts";
 * const d = new Deadline(50);
 * d.passed(); // false
 * d.left() <= 50; // true
 * ```
 */
export class Deadline {
  readonly #at: number;

  /** A deadline `ms` from now (default {@link DEFAULT_SCAN_MS}). */
  constructor(ms: number = DEFAULT_SCAN_MS) {
    this.#at = performance.now() + ms;
  }

  /** Milliseconds left (never negative). */
  left(): number {
    return Math.max(0, this.#at - performance.now());
  }

  /** True once the deadline passed. */
  passed(): boolean {
    return performance.now() >= this.#at;
  }
}
