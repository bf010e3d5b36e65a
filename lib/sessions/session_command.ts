/**
 * Running one bound tool call (json or plain) through `runCommand` in lib/runtime, with
 * the two hooks a session needs: the group is journaled before it is admitted (`onSpawn`,
 * awaited before stdin is written) and retired once its termination is confirmed.
 *
 * @module
 */

import type { ProcessRecord } from "../process/proc_identity.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import { type CommandSpec, runCommand } from "../runtime/command_tool.ts";

/** Journal hooks of a bound call. */
export interface BoundHooks {
  /**
   * Record the group before it is admitted; throwing refuses the call. Synchronous on
   * purpose: see `Journal` (an awaiting `onSpawn` can lose a fast child's output).
   */
  onSpawn: (record: ProcessRecord) => void;
  /** The group's termination was confirmed. */
  onSettled: (record: ProcessRecord) => void;
}

/**
 * Run a bound call to a normalized result. `spec.stateDir` is where the call's private
 * directories go (the session root, so a sweep removes them after a crash). Never throws
 * for tool misbehaviour.
 *
 * @example
 * ```ts
 * import { runBoundCommand } from "./session_command.ts";
 * // await runBoundCommand(spec, { onSpawn: (r) => journal.admit("call", r), onSettled: (r) => journal.retire(r) });
 * ```
 */
export async function runBoundCommand(spec: CommandSpec, hooks: BoundHooks): Promise<ToolResult> {
  try {
    return await runCommand({
      ...spec,
      onSpawn: hooks.onSpawn,
      onSettled: (run) => {
        if (run.record !== undefined && run.cleanupConfirmed) hooks.onSettled(run.record);
      },
    });
  } catch {
    return errorResult(
      "The tool call could not be recorded in its session's journal; it was not run.",
    );
  }
}
