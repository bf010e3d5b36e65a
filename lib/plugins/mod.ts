/**
 * The public plugin API: `definePlugin`, the hook and tool types, and small helpers
 * plugins commonly need (canonical JSON hashing, tool-name globs, result builders).
 * First-party plugins in plugins/ import only this module.
 *
 * @example
 * ```ts
 * import { definePlugin } from "./mod.ts";
 * export default definePlugin({
 *   name: "read-only",
 *   setup(api) {
 *     api.beforeCall(() => ({ decision: "deny", reason: "this eval is read-only" }), {
 *       tools: ["files_write_*", "files_edit_*", "files_patch_*", "shell_exec_*"],
 *     });
 *   },
 * });
 * ```
 *
 * @module
 */

export { definePlugin, isPlugin } from "./api.ts";
export type {
  AfterCallHook,
  BeforeCallDecision,
  BeforeCallHook,
  CallEndedHook,
  CallEndedInfo,
  CallInfo,
  ConfigContext,
  ConfigReporter,
  HookContext,
  HookOptions,
  Plugin,
  PluginApi,
  PluginCliContext,
  PluginCliWorkspace,
  PluginDefinition,
  PluginTool,
  PluginToolContext,
  SessionHook,
  SessionInfo,
} from "./api.ts";
export { canonicalJson, canonicalSha256 } from "./canonical.ts";
export { isNameGlob, matchesAny, matchNameGlob } from "./name_glob.ts";
export { REDACTED } from "./redact.ts";
export { openStateAppend, reportStateFileRefused, StateFileRefused } from "./state_file.ts";
export { errorResult, jsonResult, textResult } from "../results/types.ts";
export type { Block, ToolResult } from "../results/types.ts";
