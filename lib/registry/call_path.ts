/**
 * The call path of a registry — the tool runners (built-ins, command tools, bound session
 * calls, builtin-like plugin tools) and the plugin hooks around a call — loaded on the first
 * call instead of with the registry. Opening a registry and listing its tools use none of
 * it, and evaluating its modules was about a tenth of `serve`'s start-up before its first
 * answered `tools/list` (CPU profile of the single executable); `serve` loads it right
 * after answering a listing ({@linkcode prefetchCallPath}), so a call rarely waits for it.
 * Once loaded, a call runs through it synchronously, exactly as through a static import.
 *
 * @module
 */

import { setImmediate } from "node:timers";
import type { callTool } from "../runtime/call_tool.ts";
import type { callListedTool, guardCall } from "../plugins/plugin_tools.ts";

/** The functions a registry calls tools through. */
export interface CallPath {
  /** Run a declared tool (runtime/call_tool.ts). */
  callTool: typeof callTool;
  /** Run a call through the plugins' hooks (plugins/plugin_tools.ts). */
  guardCall: typeof guardCall;
  /** Call a plugin's always-listed tool (plugins/plugin_tools.ts). */
  callListedTool: typeof callListedTool;
}

let loaded: CallPath | undefined;
let loading: Promise<CallPath> | undefined;

function load(): Promise<CallPath> {
  return loading ??= Promise.all([
    import("../runtime/call_tool.ts"),
    import("../plugins/plugin_tools.ts"),
  ]).then(([calls, plugins]) =>
    loaded = {
      callTool: calls.callTool,
      guardCall: plugins.guardCall,
      callListedTool: plugins.callListedTool,
    }
  );
}

/**
 * Run `f` with the call path: at once when it is loaded, else once it is.
 *
 * @example
 * ```ts
 * import { withCallPath } from "./call_path.ts";
 * const name = await withCallPath((c) => Promise.resolve(typeof c.callTool));
 * ```
 */
export function withCallPath<T>(f: (c: CallPath) => Promise<T>): Promise<T> {
  return loaded !== undefined ? f(loaded) : load().then(f);
}

/**
 * Start loading the call path after the current turn's I/O (a no-op once it is loaded or
 * loading); a failure is left for the first call to report.
 *
 * @example
 * ```ts
 * import { prefetchCallPath } from "./call_path.ts";
 * prefetchCallPath();
 * ```
 */
export function prefetchCallPath(): void {
  if (loading !== undefined) return;
  setImmediate(() => void load().catch(() => {}));
}
