/**
 * Tunables, environment and fixed messages of tool sessions.
 *
 * @module
 */

import type { SweepOptions } from "./sweep_options.ts";

/** Internal bound of a session's stop command, in ms (seed: 30 seconds). */
export const STOP_TIMEOUT_MS = 30_000;

/** Most bytes a readiness line may hold before its newline (64 KiB). */
export const READY_LINE_MAX_BYTES = 64 * 1024;

export { DEFAULT_GRACE_MS } from "./grace_default.ts";
import { DEFAULT_GRACE_MS } from "./grace_default.ts";

/** Options of a session supervisor. */
export interface SupervisorOptions {
  /** Options of the sweep run before each session starts (tests inject a terminator). */
  sweep?: SweepOptions;
  /** Bound of each stop command, in ms. Default {@linkcode STOP_TIMEOUT_MS} (30000). */
  stopTimeoutMs?: number;
  /** SIGTERM→SIGKILL grace for session groups and sweeps, in ms. Default 2000. */
  graceMs?: number;
  /**
   * Asked before a session's stop command runs (e.g. whether its pinned files are still
   * what the registry pinned): false skips the stop command, and the harness's group is
   * ended as usual. Default: always run it.
   */
  beforeStop?: (artifactId: string, session: string) => Promise<boolean>;
  /** Receives copies of harness (start and stop) stderr. Default: discarded. */
  stderr?: (chunk: Uint8Array) => void;
}

/** Options with every default applied. */
export type ResolvedOptions =
  & Required<Omit<SupervisorOptions, "sweep" | "beforeStop" | "stderr">>
  & {
    sweep: SweepOptions;
    beforeStop?: SupervisorOptions["beforeStop"];
    stderr?: SupervisorOptions["stderr"];
  };

/**
 * Apply the defaults of {@linkcode SupervisorOptions}; rejects non-integer or negative
 * values and a stop bound below 1 ms.
 *
 * @example
 * ```ts
 * import { resolveOptions } from "./options.ts";
 * resolveOptions({}).stopTimeoutMs; // 30000
 * ```
 */
export function resolveOptions(options: SupervisorOptions = {}): ResolvedOptions {
  const stopTimeoutMs = options.stopTimeoutMs ?? STOP_TIMEOUT_MS;
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  if (!Number.isInteger(stopTimeoutMs) || stopTimeoutMs < 1 || stopTimeoutMs > 2147483647) {
    throw new RangeError("stopTimeoutMs must be an integer from 1 to 2147483647");
  }
  if (!Number.isInteger(graceMs) || graceMs < 0 || graceMs > 2147483647) {
    throw new RangeError("graceMs must be an integer from 0 to 2147483647");
  }
  const out: ResolvedOptions = { stopTimeoutMs, graceMs, sweep: { graceMs, ...options.sweep } };
  if (options.beforeStop) out.beforeStop = options.beforeStop;
  if (options.stderr) out.stderr = options.stderr;
  return out;
}

/**
 * The variables naming a session directory, as start, stop and bound tools receive them.
 *
 * @example
 * ```ts
 * import { sessionEnv } from "./options.ts";
 * sessionEnv("/s/d"); // { ARTIFACTIZE_SESSION_DIR: "/s/d", TOOLHOST_SESSION_DIR: "/s/d" }
 * ```
 */
export function sessionEnv(dir: string): Record<string, string> {
  return { ARTIFACTIZE_SESSION_DIR: dir, TOOLHOST_SESSION_DIR: dir };
}

/**
 * The exact tool error of every bound call after a session's start process exited.
 *
 * @example
 * ```ts
 * import { sessionEndedMessage } from "./options.ts";
 * sessionEndedMessage("app"); // "The tool session `app` ended."
 * ```
 */
export function sessionEndedMessage(name: string): string {
  return `The tool session \`${name}\` ended.`;
}
