/**
 * What `tools check` says about confinement: the confinement in effect per tool,
 * session, extension and hook (`bubblewrap fs=read net=off`, or `host`), why it is
 * unavailable where it is, a readiness check that fails when a confined declaration
 * would be refused, and a flag on every unconfined process of an agent eval.
 *
 * @module
 */

import type { ReadinessCheck } from "../check/static_checks.ts";
import { sandboxSupport } from "./detect.ts";
import type { SandboxMode, SandboxPolicy } from "./policy.ts";

/** The report entry of one declaration's confinement. */
export interface ConfinementInfo {
  /** What runs: `bubblewrap fs=MODE net=on|off`, `host`, or `refused (REASON)`. */
  effect: string;
  /** The policy mode in effect. */
  sandbox: SandboxMode;
  /** Whether the network is allowed (always true under `host`). */
  network: boolean;
  /** Extra read-only paths (`sandbox_read`). */
  sandboxRead: string[];
  /** Extra writable paths (`sandbox_write`). */
  sandboxWrite: string[];
  /** Why confinement is unavailable on this host (confined declarations are refused). */
  unavailable?: string;
  /** Set for an unconfined process an agent can steer: it runs with your full authority. */
  flag?: string;
}

/** The flag text of an unconfined declaration of an agent eval. */
export const UNCONFINED_FLAG =
  'unconfined: runs with the full authority of whoever started toolhost (set sandbox = "none", "read" or "write")';

/**
 * The report entry for a declaration's policy (`host` when it carries none).
 *
 * @example
 * ```ts
 * import { confinementInfo } from "./report.ts";
 * confinementInfo(undefined, "human").effect; // "host"
 * ```
 */
export function confinementInfo(
  policy: SandboxPolicy | undefined,
  audience: "agent" | "human",
): ConfinementInfo {
  const p = policy ?? { mode: "host", network: true, read: [], write: [] };
  const base = {
    sandbox: p.mode,
    network: p.network,
    sandboxRead: [...p.read],
    sandboxWrite: [...p.write],
  };
  if (p.mode === "host") {
    return { effect: "host", ...base, ...(audience === "agent" ? { flag: UNCONFINED_FLAG } : {}) };
  }
  const s = sandboxSupport();
  if (!s.ok) return { effect: `refused (${s.reason})`, ...base, unavailable: s.reason };
  return { effect: `bubblewrap fs=${p.mode} net=${p.network ? "on" : "off"}`, ...base };
}

/**
 * The readiness check of a confined declaration: fails when confinement is unavailable
 * here (the declaration would be refused, never run unconfined). Undefined for `host`.
 *
 * @example
 * ```ts
 * import { confinementCheck } from "./report.ts";
 * confinementCheck(undefined); // undefined
 * ```
 */
export function confinementCheck(policy: SandboxPolicy | undefined): ReadinessCheck | undefined {
  if (policy === undefined || policy.mode === "host") return undefined;
  const s = sandboxSupport();
  return {
    check: "confinement",
    ok: s.ok,
    detail: s.ok
      ? `bubblewrap fs=${policy.mode} net=${policy.network ? "on" : "off"}`
      : `unavailable (${s.reason}): it would be refused`,
  };
}
