/**
 * `tools check --execute`: run one tool in its selection's own scope with a fresh set of
 * lazy sessions (cleaned up afterwards) and report the result.
 *
 * @module
 */

import { InvocationError } from "../../errors/errors.ts";
import { checkExtensions } from "../../mcp/extensions/readiness.ts";
import type { ExtensionReadiness } from "../../mcp/extensions/extension_server.ts";
import { findTool, type SelectionSpec, selectTools } from "../../registry/selection.ts";
import type { ToolResult } from "../../results/types.ts";
import type { Workspace } from "../../workspace/types.ts";
import { parseArgsOption } from "../common_options.ts";
import { withRegistry } from "../run_with_registry.ts";

/** The outcome of an executed check. */
export interface ExecuteOutcome {
  /** JSON report printed on stdout. */
  report: {
    tool: string;
    audience: string;
    result: ToolResult;
    extensions?: ExtensionReadiness[];
    ready: boolean;
  };
  /** Success. */
  ok: boolean;
}

/**
 * Run one tool for `tools check --execute`. With `--artifact`, the short name or the
 * published name is accepted; with an eval, the published name.
 *
 * @example
 * ```ts
 * import { executeCheck } from "./tools_check_execute.ts";
 * // await executeCheck(ws, { eval: "app/review" }, "read_app", '{"path":"README.md"}', stateDir)
 * ```
 */
export async function executeCheck(
  ws: Workspace,
  spec: SelectionSpec,
  toolName: string,
  rawArgs: string | undefined,
  stateDir: string,
): Promise<ExecuteOutcome> {
  const sel = selectTools(ws, spec);
  if (sel.audience === "human" && rawArgs !== undefined) {
    throw new InvocationError(
      "--args is valid only for agent tools; human tools take no arguments",
    );
  }
  const tool = findTool(sel, toolName, "artifact" in spec);
  const args = parseArgsOption(rawArgs);
  const result = await withRegistry(
    ws,
    spec,
    { stateDir, audience: sel.audience },
    (reg, signal) => reg.call(tool.name, args, { signal }),
  );
  const extensions = "eval" in spec ? await checkExtensions(ws, spec.eval) : [];
  const extensionsOk = extensions.every((e) => e.toolsListed);
  const ok = !result.isError && extensionsOk;
  return {
    report: {
      tool: tool.name,
      audience: sel.audience,
      result,
      ...(extensions.length > 0 ? { extensions } : {}),
      ready: ok,
    },
    ok,
  };
}
