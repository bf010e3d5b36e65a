/**
 * Calling plugin tools: always-listed ones by bare name (admission, hooks, run) and
 * declared ones (`builtin = "<tool>"` on an Artifact) from the call pipeline. A plugin
 * tool's result is validated like json-protocol output; a throw becomes a generic error
 * and the details go to the operator log.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { BuiltinEnv } from "../builtins/context.ts";
import { admitOrRefuse } from "../schema/admit_args.ts";
import { compileSchema } from "../schema/compile_schema.ts";
import { errorResult, LIMITS, type ToolResult } from "../results/types.ts";
import type { CallInfo } from "./api.ts";
import { frozenCopy } from "./freeze.ts";
import type { PluginHost } from "./host.ts";
import type { ActiveTool } from "./host_parts.ts";
import { describeError } from "./plugin_log.ts";
import { checkReplacement } from "./result_check.ts";

/** How a plugin tool is being run. */
export interface PluginToolRun {
  /** The call as hooks saw it (arguments included). */
  call: CallInfo;
  /** The declaring Artifact's view, for declared tools. */
  files?: BuiltinEnv;
  /** Cancellation. */
  signal?: AbortSignal;
}

/**
 * Run a plugin tool with admitted arguments; never throws.
 *
 * @example
 * ```ts
 * import { runPluginTool } from "./plugin_tools.ts";
 * // const result = await runPluginTool(host, host.tool("audit_tail")!, args, { call });
 * ```
 */
export async function runPluginTool(
  host: PluginHost,
  active: ActiveTool,
  args: Record<string, unknown>,
  run: PluginToolRun,
): Promise<ToolResult> {
  let value: unknown;
  try {
    value = await active.tool.run(frozenCopy(args), {
      call: frozenCopy(run.call),
      config: active.config,
      stateDir: host.stateDir,
      ...(run.files ? { files: run.files } : {}),
      ...(run.signal ? { signal: run.signal } : {}),
    });
  } catch (e) {
    host.log.write(active.plugin, "tool", `${active.tool.name}: ${describeError(e)}`);
    return errorResult(`The plugin tool \`${active.tool.name}\` failed unexpectedly.`);
  }
  const checked = await checkReplacement(value);
  if (!checked.ok) return errorResult(`The plugin tool's output was invalid: ${checked.rule}.`);
  return checked.result;
}

/**
 * Call an always-listed plugin tool by its bare name: admission against its schema, then
 * the hooks, then the tool. Always resolves to a ToolResult.
 *
 * @example
 * ```ts
 * import { callListedTool } from "./plugin_tools.ts";
 * // const result = await callListedTool(reg.plugins, "audit_tail", {}, {});
 * ```
 */
export async function callListedTool(
  host: PluginHost,
  name: string,
  args: unknown,
  opts: { signal?: AbortSignal },
): Promise<ToolResult> {
  const active = host.tool(name);
  if (!active || active.tool.alwaysListed !== true) {
    return errorResult(`No plugin tool \`${name}\` is listed here.`);
  }
  const admission = admitOrRefuse(args, compileSchema(active.tool.inputSchema));
  if (!admission.ok) return admission.result;
  const admitted = admission.args;
  if (opts.signal?.aborted) return errorResult("The call was cancelled before it started.");
  return await host.runCall(
    { tool: name, builtin: name, args: admitted },
    opts.signal,
    (grant) =>
      runPluginTool(host, active, admitted, {
        call: {
          callId: grant.callId,
          ...(host.evalId ? { eval: host.evalId } : {}),
          tool: name,
          builtin: name,
          args: admitted,
        },
        signal: opts.signal,
      }),
  );
}

/**
 * Run a tool whose admission happens inside `exec` (e.g. the artifact tools) through the
 * hooks. Arguments that are not a JSON object of at most 64 KiB skip the hooks: `exec`
 * then refuses them before doing anything.
 *
 * @example
 * ```ts
 * import { guardCall } from "./plugin_tools.ts";
 * // await guardCall(reg.plugins, "get_artifact_field", args, opts, () => callArtifactTool(...));
 * ```
 */
export function guardCall(
  host: PluginHost,
  name: string,
  args: unknown,
  opts: { signal?: AbortSignal },
  exec: () => Promise<ToolResult>,
): Promise<ToolResult> {
  if (!host.active) return exec();
  let size = Infinity;
  try {
    size = Buffer.byteLength(JSON.stringify(args));
  } catch { /* not JSON */ }
  const isObject = typeof args === "object" && args !== null && !Array.isArray(args);
  if (!isObject || size > LIMITS.maxArgsBytes) return exec();
  return host.runCall(
    { tool: name, builtin: name, args: args as Record<string, unknown> },
    opts.signal,
    () => exec(),
  );
}
