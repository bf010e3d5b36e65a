/**
 * Spawn failures, reduced to a generic reason so that no physical path or system message
 * leaks into results.
 *
 * @module
 */

import { ToolhostError } from "../errors/errors.ts";

/** Why a process could not be started. */
export type SpawnFailure = "not found" | "permission denied" | "failed";

/**
 * A command could not be started. `reason` is generic; the message never names paths.
 *
 * @example
 * ```ts
 * import { SpawnError } from "./spawn_error.ts";
 * const e = new SpawnError("not found");
 * console.log(e.message); // "The command could not be started: not found."
 * ```
 */
export class SpawnError extends ToolhostError {
  /** Generic reason. */
  readonly reason: SpawnFailure;
  /** Create a spawn error from a generic reason. */
  constructor(reason: SpawnFailure) {
    super("TOOL_ERROR", `The command could not be started: ${reason}.`);
    this.reason = reason;
  }
}

/**
 * Map a Node spawn error code (`ENOENT`, `EACCES`, ...) to a generic reason.
 *
 * @example
 * ```ts
 * import { spawnFailureFromCode } from "./spawn_error.ts";
 * spawnFailureFromCode("ENOENT"); // "not found"
 * ```
 */
export function spawnFailureFromCode(code: string | undefined): SpawnFailure {
  if (code === "ENOENT" || code === "ENOTDIR") return "not found";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return "failed";
}
