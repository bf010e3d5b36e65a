/**
 * What `tools check` says about declared resource limits: the limits, which enforcement
 * is in effect (`cgroup`, `rlimit`, or `none (unsupported: REASON)`), and a readiness
 * check that fails when they cannot be enforced — so nothing is silently unenforced.
 *
 * @module
 */

import type { ReadinessCheck } from "../check/static_checks.ts";
import { currentEnforcement, enforcementGuarantees, enforcementLabel } from "./enforcement.ts";
import { LIMIT_KEYS, limitsAsKeys, type ResourceLimits } from "./types.ts";

/** The report entry of a tool's or session's limits. */
export interface LimitsInfo {
  /** The declared keys, e.g. `{ "max_memory_mb": 256 }`. */
  declared: Record<string, number>;
  /** `cgroup`, `rlimit` or `none (unsupported: REASON)`. */
  enforcement: string;
  /** What that enforcement guarantees, one line per declared limit kind. */
  guarantees: string[];
  /** Under `rlimit`: why no cgroup v2 child group could be used here. */
  cgroupUnavailable?: string;
}

/**
 * The report entry for declared limits.
 *
 * @example
 * ```ts
 * import { limitsInfo } from "./report.ts";
 * limitsInfo({ maxProcesses: 8 }).declared; // { max_processes: 8 }
 * ```
 */
export function limitsInfo(limits: ResourceLimits): LimitsInfo {
  const e = currentEnforcement();
  const all = enforcementGuarantees(e.mode);
  const kinds = LIMIT_KEYS.map((k, i) => [k, i] as const).filter(([k]) =>
    limits[k.field] !== undefined
  );
  return {
    declared: limitsAsKeys(limits),
    enforcement: enforcementLabel(e),
    guarantees: e.mode === "none" ? all : kinds.map(([, i]) => all[i]),
    ...(e.mode === "rlimit" ? { cgroupUnavailable: e.cgroupReason } : {}),
  };
}

/**
 * The readiness check of declared limits: fails when they cannot be enforced here.
 *
 * @example
 * ```ts
 * import { limitsCheck } from "./report.ts";
 * limitsCheck().check; // "limits"
 * ```
 */
export function limitsCheck(): ReadinessCheck {
  const e = currentEnforcement();
  return {
    check: "limits",
    ok: e.mode !== "none",
    detail: e.mode === "none"
      ? `${enforcementLabel(e)}: the tool would be refused`
      : `enforced with ${e.mode}`,
  };
}
