/**
 * `tools check --execute`: run one tool in a fresh set of lazy sessions and report.
 *
 * @module
 */

import { InvocationError } from "../../errors/errors.ts";
import type { SelectionSpec } from "../../registry/selection.ts";
import type { ToolResult } from "../../results/types.ts";
import type { Workspace } from "../../workspace/types.ts";

/** The outcome of an executed check. */
export interface ExecuteOutcome {
  /** JSON report printed on stdout. */
  report: { tool: string; result?: ToolResult; ready: boolean };
  /** Success. */
  ok: boolean;
}

/**
 * Run one tool for `tools check --execute`.
 *
 * @example
 * ```ts
 * import { executeCheck } from "./tools_check_execute.ts";
 * // await executeCheck(ws, { eval: "app/review" }, "read_app", '{"path":"README.md"}', stateDir)
 * ```
 */
export function executeCheck(
  _ws: Workspace,
  _spec: SelectionSpec,
  _tool: string,
  _args: string | undefined,
  _stateDir: string,
): Promise<ExecuteOutcome> {
  return Promise.reject(new InvocationError("--execute is not available in this build yet"));
}
