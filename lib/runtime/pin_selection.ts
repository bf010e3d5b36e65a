/**
 * Pin the execution paths of a selection's tools and of the sessions they bind, under
 * the registered tool names and `<session>_<artifact>.start` / `.stop`.
 *
 * @module
 */

import { type ExecutionPathPins, pinExecutionPaths, type PinRequest } from "../pins/mod.ts";
import type { Selection } from "../registry/selection.ts";
import { sessionPinKey } from "../workspace/names.ts";
import type { Workspace } from "../workspace/types.ts";

/**
 * The pin requests of a selection: one per command tool with execution paths, and one per
 * start/stop command of each session a listed tool is bound to.
 *
 * @example
 * ```ts
 * import { pinRequests } from "./pin_selection.ts";
 * // pinRequests(ws, sel) → [{ key: "stats_app", paths: ["app/tools/stats.mjs"] }]
 * ```
 */
export function pinRequests(ws: Workspace, sel: Selection): PinRequest[] {
  const out: PinRequest[] = [];
  const sessions = new Set<string>();
  for (const t of sel.tools) {
    if (t.decl.type !== "command") continue;
    if (t.decl.executionPaths.length > 0) out.push({ key: t.name, paths: t.decl.executionPaths });
    const s = t.decl.session;
    if (s === undefined) continue;
    const start = sessionPinKey(s, t.artifactId, "start");
    if (sessions.has(start)) continue;
    sessions.add(start);
    const decl = ws.artifacts.get(t.artifactId)!.sessions[s];
    if (decl.start.executionPaths.length > 0) {
      out.push({ key: start, paths: decl.start.executionPaths });
    }
    if (decl.stop.executionPaths.length > 0) {
      out.push({ key: sessionPinKey(s, t.artifactId, "stop"), paths: decl.stop.executionPaths });
    }
  }
  return out;
}

/**
 * Pin a selection; throws `PreparationFailed` when a path cannot be pinned.
 *
 * @example
 * ```ts
 * import { pinSelection } from "./pin_selection.ts";
 * // const pins = await pinSelection(ws, sel);
 * ```
 */
export function pinSelection(ws: Workspace, sel: Selection): Promise<ExecutionPathPins> {
  return pinExecutionPaths(ws.root, pinRequests(ws, sel));
}
