/**
 * Which enforcement of resource limits this host allows, decided once per process:
 * `cgroup` (a cgroup v2 child group per call or session, where toolhost may create one),
 * else `rlimit` (`prlimit` plus toolhost's watchdog over every descendant), else `none` with the
 * reason. Tools that declare limits are refused under `none` rather than run unbounded.
 *
 * @module
 */

import { existsSync } from "node:fs";
import process from "node:process";
import { probeCgroup } from "./cgroup.ts";
import { findPrlimit } from "./rlimit.ts";
import { subreaping } from "../process/adopted.ts";

/** Which descendants the rlimit watchdog counts (for the guarantees). */
const TREE =
  "its process group, children that called setpgid or setsid, processes re-parented away that carry the group's tag";

/** What the watchdog makes of a process that left the tree by every way at once. */
function orphans(): string {
  return subreaping()
    ? "A grandchild re-parented by a double fork, in a new session, with its environment cleared, is re-parented to toolhost (a child subreaper) and counted and killed too"
    : "Not found: a process that leaves the tree within one tick (a double fork), starts a new session and clears its environment (toolhost is no child subreaper here: the CLI makes itself one under Deno on Linux) — use cgroup mode or confinement to bound it";
}

/** The enforcement in effect. */
export type Enforcement =
  | { mode: "cgroup"; parent: string }
  | { mode: "rlimit"; prlimit: string; cgroupReason: string }
  | { mode: "none"; reason: string };

/** Options of {@link configureLimits}. */
export interface LimitsConfig {
  /** `auto` (default): cgroup when possible, else rlimit. Forcing a mode skips the other. */
  mode?: "auto" | "cgroup" | "rlimit";
  /** cgroup v2 parent group. Default `$TOOLHOST_CGROUP`, else toolhost's own cgroup. */
  cgroupParent?: string;
  /** Path of `prlimit`. Default: looked up on `PATH`. */
  prlimit?: string;
  /** Watchdog sampling interval, ms. Default 10. */
  intervalMs?: number;
}

let config: LimitsConfig = {};
let cached: Enforcement | undefined;

/**
 * Change how limits are enforced (tests, benchmarks, embedders); resets the cached
 * decision.
 *
 * @example
 * ```ts
 * import { configureLimits } from "./enforcement.ts";
 * configureLimits({ mode: "rlimit" });
 * ```
 */
export function configureLimits(c: LimitsConfig): void {
  config = { ...c };
  cached = undefined;
}

/**
 * The watchdog interval in effect, ms.
 *
 * @example
 * ```ts
 * import { watchdogIntervalMs } from "./enforcement.ts";
 * watchdogIntervalMs(); // 10
 * ```
 */
export function watchdogIntervalMs(): number {
  return config.intervalMs ?? 10;
}

function detect(): Enforcement {
  if (!existsSync("/proc/self/stat")) {
    return { mode: "none", reason: "resource limits need Linux /proc" };
  }
  let cgroupReason = "cgroup enforcement was not requested";
  if (config.mode !== "rlimit") {
    const probe = probeCgroup({ parent: config.cgroupParent });
    if (probe.ok) return { mode: "cgroup", parent: probe.parent };
    cgroupReason = probe.reason;
    if (config.mode === "cgroup") return { mode: "none", reason: cgroupReason };
  }
  const prlimit = config.prlimit ?? findPrlimit(process.env.PATH);
  if (prlimit === undefined) {
    return {
      mode: "none",
      reason: `${cgroupReason}, and prlimit (util-linux) was not found`,
    };
  }
  return { mode: "rlimit", prlimit, cgroupReason };
}

/**
 * The enforcement in effect (probed once, then cached).
 *
 * @example
 * ```ts
 * import { currentEnforcement } from "./enforcement.ts";
 * currentEnforcement().mode; // "cgroup", "rlimit" or "none"
 * ```
 */
export function currentEnforcement(): Enforcement {
  cached ??= detect();
  return cached;
}

/**
 * The label `tools check` prints: `cgroup`, `rlimit`, or `none (unsupported: REASON)`.
 *
 * @example
 * ```ts
 * import { enforcementLabel } from "./enforcement.ts";
 * enforcementLabel({ mode: "none", reason: "resource limits need Linux /proc" });
 * // "none (unsupported: resource limits need Linux /proc)"
 * ```
 */
export function enforcementLabel(e: Enforcement): string {
  return e.mode === "none" ? `none (unsupported: ${e.reason})` : e.mode;
}

/**
 * What each enforcement really guarantees, one line per limit (for reports and docs).
 *
 * @example
 * ```ts
 * import { enforcementGuarantees } from "./enforcement.ts";
 * enforcementGuarantees("rlimit").length; // 3
 * ```
 */
export function enforcementGuarantees(mode: Enforcement["mode"]): string[] {
  if (mode === "cgroup") {
    return [
      "memory: the kernel holds the call's group to max_memory_mb (memory.max, no swap) and OOM-kills all of it; a descendant that moved itself out of the group has its resident memory added every watchdog tick, and a rewritten memory.max is a breach",
      "cpu: the group's total CPU time (cpu.stat), plus that of descendants that left it, is checked every watchdog tick; over the limit, everything the tool started is killed",
      "processes: the kernel refuses forks past max_processes (pids.max) and the first refusal kills the group; descendants that left the group are counted too, and a rewritten pids.max is a breach",
    ];
  }
  if (mode === "rlimit") {
    return [
      `memory: the resident memory of every descendant of the tool (${TREE}) is summed every watchdog tick; over max_memory_mb, all of them are killed; the kernel caps each process's data segment at max(2 × limit, limit + 1 GiB) (RLIMIT_DATA)`,
      `cpu: the CPU time of every descendant (${TREE}), ended ones included, is summed every watchdog tick; the kernel stops each process one second past the limit (RLIMIT_CPU)`,
      `processes: every running descendant (${TREE}) is counted with its threads every watchdog tick; over the limit, all of them are killed (RLIMIT_NPROC is per user and not used); more than 8192 cannot be measured and are stopped too. ${orphans()}`,
    ];
  }
  return ["nothing is enforced: tools that declare limits are refused"];
}
