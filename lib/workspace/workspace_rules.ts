/**
 * Cross-declaration rules: eval references, session bindings, `{artifact}` operands in
 * every eval scope, and published-name collisions.
 *
 * @module
 */

import { isInsideWorkspace } from "./program_path.ts";
import { checkRootsInside } from "./fields.ts";
import { publishedName, RESERVED_TOOL_NAMES, sessionPinKey } from "./names.ts";
import { noSession, type Problems } from "./problems.ts";
import { evalScope } from "./scope.ts";
import type { ArgvElement, Artifact, Workspace } from "./types.ts";

/**
 * Check the rules that span declarations; records problems with key paths.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { checkWorkspaceRules } from "./workspace_rules.ts";
 * // checkWorkspaceRules(new Problems("toolhost.toml", text), ws);
 * ```
 */
export function checkWorkspaceRules(p: Problems, ws: Workspace): void {
  for (const a of ws.artifacts.values()) {
    checkSessionBindings(p, a);
    checkCommandsStayInside(p, ws, a);
    checkRootsStayInside(p, ws, a);
    checkOperandsExist(p, ws, a);
  }
  // Dangling `references` are checked on the manifest as written (loose_rules.ts).
  for (const ev of ws.evals.values()) checkOperandsInScope(p, ws, ev.id, ev.keyPath);
  checkCollisions(p, ws);
}

function checkSessionBindings(p: Problems, a: Artifact): void {
  for (const t of Object.values(a.agentTools)) {
    if (t.type === "command" && t.session !== undefined && !Object.hasOwn(a.sessions, t.session)) {
      p.add(`${t.keyPath}.session`, noSession(t.session, a.id, Object.keys(a.sessions)));
    }
  }
}

function checkCommandsStayInside(p: Problems, ws: Workspace, a: Artifact): void {
  const commands: { command: string; keyPath: string }[] = [];
  for (const t of [...Object.values(a.agentTools), ...Object.values(a.humanTools)]) {
    if (t.type === "command") commands.push(t);
  }
  for (const s of Object.values(a.sessions)) commands.push(s.start, s.stop);
  for (const c of commands) {
    if (c.command.includes("/") && !isInsideWorkspace(ws.root, a.cwd, c.command)) {
      p.add(`${c.keyPath}.command`, "resolves outside the workspace");
    }
  }
}

function checkRootsStayInside(p: Problems, ws: Workspace, a: Artifact): void {
  const owners: { artifactRoots: string[]; keyPath: string }[] = [a];
  for (const t of [...Object.values(a.agentTools), ...Object.values(a.humanTools)]) {
    if (t.type === "command") owners.push(t);
  }
  for (const o of owners) {
    checkRootsInside(p, ws.root, o.artifactRoots, o.keyPath);
  }
}

/** argv lists of one audience's command tools (agent: also its sessions), or of all. */
function operandLists(
  a: Artifact,
  audience?: "agent" | "human",
): { args: ArgvElement[]; keyPath: string }[] {
  const out: { args: ArgvElement[]; keyPath: string }[] = [];
  if (audience !== "human") {
    for (const t of Object.values(a.agentTools)) if (t.type === "command") out.push(t);
    for (const s of Object.values(a.sessions)) out.push(s.start, s.stop);
  }
  if (audience !== "agent") {
    for (const t of Object.values(a.humanTools)) if (t.type === "command") out.push(t);
  }
  return out;
}

function checkOperandsExist(p: Problems, ws: Workspace, a: Artifact): void {
  for (const { args, keyPath } of operandLists(a)) {
    args.forEach((e, i) => {
      if (typeof e !== "string" && !ws.artifacts.has(e.artifact)) {
        p.add(`${keyPath}.args[${i}]`, `names no Artifact \`${e.artifact}\``);
      }
    });
  }
}

function checkOperandsInScope(p: Problems, ws: Workspace, evalId: string, evalKey: string): void {
  const scope = new Set(evalScope(ws, evalId));
  const audience = ws.evals.get(evalId)?.audience;
  for (const id of scope) {
    const a = ws.artifacts.get(id);
    if (!a) continue;
    for (const { args, keyPath } of operandLists(a, audience)) {
      args.forEach((e, i) => {
        if (typeof e === "string") return;
        if (ws.artifacts.has(e.artifact) && !scope.has(e.artifact)) {
          p.add(
            `${keyPath}.args[${i}]`,
            `Artifact \`${e.artifact}\` is outside the scope of eval \`${evalId}\` (${evalKey}); add it to its references`,
          );
        }
      });
    }
  }
}

function checkCollisions(p: Problems, ws: Workspace): void {
  for (const view of ["agentTools", "humanTools"] as const) {
    const seen = new Map<string, string>();
    for (const a of ws.artifacts.values()) {
      for (const t of Object.values(a[view])) {
        const name = publishedName(t.name, a.id);
        const prev = seen.get(name);
        if (prev) {
          p.add(t.keyPath, `publishes the name \`${name}\`, which ${prev} also publishes`);
        } else if (view === "agentTools" && RESERVED_TOOL_NAMES.includes(name)) {
          p.add(t.keyPath, `publishes \`${name}\`, a name toolhost reserves`);
        }
        seen.set(name, t.keyPath);
      }
    }
  }
  const sessions = new Map<string, string>();
  for (const a of ws.artifacts.values()) {
    for (const s of Object.values(a.sessions)) {
      const key = sessionPinKey(s.name, a.id, "start");
      const prev = sessions.get(key);
      if (prev) p.add(s.keyPath, `its provenance name collides with ${prev}`);
      sessions.set(key, s.keyPath);
    }
  }
}
