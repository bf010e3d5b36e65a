/**
 * The `lock` section of `toolhost tools check`: whether an eval matches `toolhost.lock`,
 * and if not, every difference (names and fields) and the tools that would be refused.
 *
 * @module
 */

import type { Protector } from "../redact/types.ts";
import { describeDrift, type Drift } from "./compare.ts";
import { redactDrift, redactName } from "./redact_drift.ts";

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
 * A lock section from drift lines and blocked tools; names (which come out of the lock
 * file too) are redacted by `protectors`, the registry's protected values.
 *
 * @example
 * ```ts
 * import { lockSection } from "./lock_section.ts";
 * lockSection([], []).status; // "verified"
 * ```
 */
export function lockSection(
  drift: readonly Drift[],
  blocked: readonly string[],
  protectors: readonly Protector[] = [],
): LockSection {
  return {
    status: drift.length === 0 ? "verified" : "drift",
    drift: drift.map((d) => describeDrift(redactDrift(d, protectors))),
    blocked: blocked.map((n) => redactName(n, protectors)),
  };
}
