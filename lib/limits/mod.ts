/**
 * Resource limits per tool, session and extension: `max_memory_mb`,
 * `max_cpu_seconds`, `max_processes`, enforced with a cgroup v2 child group where toolhost
 * may create one, else with `prlimit` and a watchdog over every descendant of the tool.
 *
 * @example
 * ```ts
 * import { currentEnforcement, enforcementLabel } from "./mod.ts";
 * console.log(enforcementLabel(currentEnforcement())); // "cgroup", "rlimit" or "none (unsupported: …)"
 * ```
 *
 * @module
 */

export { LIMIT_KEYS, limitMessage } from "./types.ts";
export type { LimitKind, ResourceLimits } from "./types.ts";
export {
  configureLimits,
  currentEnforcement,
  enforcementGuarantees,
  enforcementLabel,
} from "./enforcement.ts";
export type { Enforcement, LimitsConfig } from "./enforcement.ts";
export { openGuard } from "./guard.ts";
export type { GuardOutcome } from "./guard.ts";
export { probeCgroup } from "./cgroup.ts";
export type { LimitsInfo } from "./report.ts";
