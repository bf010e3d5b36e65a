/**
 * Every declaration of a workspace that starts a process — command tools (agent and
 * human), sessions, extensions and hook commands — with a label for reports.
 *
 * @module
 */

import { type ExtensionDecl, extensionsOf } from "../workspace/parse_extensions.ts";
import { type HookCommandDecl, pluginsOf } from "../workspace/parse_plugins.ts";
import type {
  BuiltinToolDecl,
  CommandToolDecl,
  SessionDecl,
  Workspace,
} from "../workspace/types.ts";
import { PROCESS_BUILTINS } from "../workspace/parse_views.ts";

/** A declaration that starts processes. */
export type ConfinableDecl =
  | CommandToolDecl
  | BuiltinToolDecl
  | SessionDecl
  | ExtensionDecl
  | HookCommandDecl;

/**
 * The process-starting declarations of `ws`, in manifest order per kind.
 *
 * @example
 * ```ts
 * import { loadWorkspaceSync } from "../workspace/load_workspace.ts";
 * import { confinableDecls } from "./decls.ts";
 * confinableDecls(loadWorkspaceSync("examples")).length; // ≥ 1
 * ```
 */
export function confinableDecls(ws: Workspace): ConfinableDecl[] {
  const out: ConfinableDecl[] = [];
  for (const a of ws.artifacts.values()) {
    for (const t of [...Object.values(a.agentTools), ...Object.values(a.humanTools)]) {
      if (t.type === "command" || PROCESS_BUILTINS.includes(t.builtin)) out.push(t);
    }
    out.push(...Object.values(a.sessions));
  }
  out.push(...extensionsOf(ws).decls.values());
  out.push(...pluginsOf(ws).hooks);
  return out;
}
