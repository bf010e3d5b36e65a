/**
 * Running built-in-like tools from the call pipeline: the native catalog (lib/native) and
 * plugin tools declared on an Artifact. Both get the declaring Artifact's sandbox view;
 * native tools also get the plugins' environment grant (protected bindings).
 *
 * @module
 */

import type { Confine } from "../process/sandbox_init.ts";
import type { BuiltinEnv } from "../builtins/context.ts";
import { isNativeName } from "../native/specs.ts";
import { runNative } from "../native/run.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import type { BuiltinToolDecl } from "../workspace/types.ts";
import type { PluginHost } from "./host.ts";
import type { CallGrant } from "./host_parts.ts";
import { runPluginTool } from "./plugin_tools.ts";

/** What the pipeline hands over. */
export interface BuiltinLikeCall {
  /** The registry's plugin host. */
  plugins: PluginHost;
  /** State directory. */
  stateDir: string;
  /** The author's environment. */
  env: Readonly<Record<string, string>>;
  /** Published tool name. */
  tool: string;
  /** Admitted arguments. */
  args: Record<string, unknown>;
  /** The declaring Artifact's view. */
  files: BuiltinEnv;
  /** The hooks' grant. */
  grant: CallGrant;
  /** Confinement of a native tool's processes (`shell_exec`, git). Default none. */
  confine?: Confine;
}

/**
 * Whether a built-in declaration is run here (native or plugin tool).
 *
 * @example
 * ```ts
 * import { isBuiltinLike } from "./builtin_like.ts";
 * // isBuiltinLike(decl) → true for builtin = "files_edit"
 * ```
 */
export function isBuiltinLike(decl: BuiltinToolDecl): boolean {
  return decl.plugin !== undefined || isNativeName(decl.builtin);
}

/**
 * Run a native or declared plugin tool.
 *
 * @example
 * ```ts
 * import { callBuiltinLike } from "./builtin_like.ts";
 * // await callBuiltinLike(decl, { plugins: reg.plugins, stateDir, env, tool, args, files, grant });
 * ```
 */
export function callBuiltinLike(decl: BuiltinToolDecl, c: BuiltinLikeCall): Promise<ToolResult> {
  if (decl.plugin === undefined && isNativeName(decl.builtin)) {
    return runNative(decl.builtin, c.args, {
      ...c.files,
      stateDir: c.stateDir,
      baseEnv: c.env,
      grantedEnv: c.grant.env,
      ...(c.confine ? { confine: c.confine } : {}),
    });
  }
  const active = c.plugins.tool(decl.builtin);
  if (!active || active.plugin !== decl.plugin?.name) {
    return Promise.resolve(errorResult(`The plugin tool \`${decl.builtin}\` is not available.`));
  }
  return runPluginTool(c.plugins, active, c.args, {
    call: {
      callId: c.grant.callId,
      ...(c.plugins.evalId ? { eval: c.plugins.evalId } : {}),
      tool: c.tool,
      artifactId: c.files.declaring.id,
      builtin: decl.builtin,
      args: c.args,
    },
    files: c.files,
    signal: c.files.signal,
  });
}
