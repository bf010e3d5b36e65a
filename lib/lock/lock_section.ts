/**
 * The `lock` section of `toolhost tools check`: whether an eval matches `toolhost.lock`,
 * and if not, every difference (names and fields) and the tools that would be refused.
 *
 * @module
 */

import { describeDrift, type Drift } from "./compare.ts";

/** The lock section of one eval's report. */
export interface LockSection {
  /** `verified` (matches), `drift` (differences: tools blocked) or `unverifiable`. */
  status: "verified" | "drift" | "unverifiable";
  /** One line per difference. */
  drift: string[];
  /** Tools that calls would refuse with `LOCK_MISMATCH`. */
  blocked: string[];
  /** Why it could not be verified (value-free), for `unverifiable`. */
  reason?: string;
}

/**
 * A lock section from drift lines and blocked tools.
 *
 * @example
 * ```ts
 * import { lockSection } from "./lock_section.ts";
 * lockSection([], []).status; // "verified"
 * ```
 */
export function lockSection(drift: readonly Drift[], blocked: readonly string[]): LockSection {
  return {
    status: drift.length === 0 ? "verified" : "drift",
    drift: drift.map(describeDrift),
    blocked: [...blocked],
  };
}
