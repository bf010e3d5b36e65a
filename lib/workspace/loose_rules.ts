/**
 * Cross-declaration rules checked on the manifest as written, so that they are reported in
 * the same round as everything else — also for declarations dropped for another mistake
 * (an eval with a bad `audience`, a tool with a bad schema), which the validated
 * workspace no longer holds.
 *
 * @module
 */

import { isInsideWorkspace } from "./program_path.ts";
import { isTable, noSession, type Problems, suggest, type Table } from "./problems.ts";
import type { Artifact, Workspace } from "./types.ts";

function table(v: unknown): Table {
  return isTable(v) ? v : {};
}

/** `names no Artifact `X``, with a did-you-mean among the declared ids. */
function noArtifact(name: string, declared: readonly string[]): string {
  const hint = suggest(name, declared);
  return `names no Artifact \`${name}\`${hint ? ` (did you mean \`${hint}\`?)` : ""}`;
}

/**
 * Every eval's `references` entry must name a declared Artifact (a table under
 * `[artifacts]`, even one with its own mistakes), whatever else is wrong with the eval.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { checkReferencesDeclared } from "./loose_rules.ts";
 * const p = new Problems("toolhost.toml", "");
 * checkReferencesDeclared(p, { artifacts: { app: { evals: { r: { references: ["nots"] } } } } });
 * p.list.length; // 1
 * ```
 */
export function checkReferencesDeclared(p: Problems, data: Table): void {
  const arts = table(data.artifacts);
  const declared = Object.keys(arts);
  for (const [id, raw] of Object.entries(arts)) {
    for (const [name, ev] of Object.entries(table(table(raw).evals))) {
      const refs = table(ev).references;
      if (!Array.isArray(refs)) continue;
      refs.forEach((r, i) => {
        if (typeof r === "string" && !Object.hasOwn(arts, r)) {
          p.add(`artifacts.${id}.evals.${name}.references[${i}]`, noArtifact(r, declared));
        }
      });
    }
  }
}

/** A raw command table's location and fields. */
interface RawCommand {
  keyPath: string;
  t: Table;
}

/** Tool and session command tables of an Artifact that did not validate. */
function droppedCommands(a: Artifact, raw: Table): RawCommand[] {
  const views = table(raw.views);
  const at = `${a.keyPath}.views`;
  const out: RawCommand[] = [];
  for (const view of ["agent_tools", "human_tools"] as const) {
    const kept = view === "agent_tools" ? a.agentTools : a.humanTools;
    for (const [name, t] of Object.entries(table(views[view]))) {
      if (!Object.hasOwn(kept, name) && isTable(t) && !("builtin" in t)) {
        out.push({ keyPath: `${at}.${view}.${name}`, t });
      }
    }
  }
  for (const [name, s] of Object.entries(table(views.agent_sessions))) {
    if (Object.hasOwn(a.sessions, name)) continue;
    for (const part of ["start", "stop"]) {
      const t = table(s)[part];
      if (isTable(t)) out.push({ keyPath: `${at}.agent_sessions.${name}.${part}`, t });
    }
  }
  return out;
}

/**
 * For command declarations dropped for another mistake, still check what can be checked:
 * the command stays inside the workspace, `{ artifact = ID }` operands name a declared
 * Artifact, and `session` names a session of the same Artifact.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { checkDroppedCommands } from "./loose_rules.ts";
 * // checkDroppedCommands(new Problems("toolhost.toml", text), ws, manifest.data);
 * ```
 */
export function checkDroppedCommands(p: Problems, ws: Workspace, data: Table): void {
  const arts = table(data.artifacts);
  const declared = Object.keys(arts);
  for (const a of ws.artifacts.values()) {
    const raw = table(arts[a.id]);
    const sessions = table(table(raw.views).agent_sessions);
    for (const { keyPath, t } of droppedCommands(a, raw)) {
      const c = t.command;
      if (typeof c === "string" && c.includes("/") && !c.startsWith("/") && !c.includes("\0")) {
        if (!isInsideWorkspace(ws.root, a.cwd, c)) {
          p.add(`${keyPath}.command`, "resolves outside the workspace");
        }
      }
      if (Array.isArray(t.args)) {
        t.args.forEach((e, i) => {
          const id = table(e).artifact;
          if (typeof id === "string" && !Object.hasOwn(arts, id)) {
            p.add(`${keyPath}.args[${i}]`, noArtifact(id, declared));
          }
        });
      }
      const s = t.session;
      if (
        typeof s === "string" && keyPath.includes(".agent_tools.") && !Object.hasOwn(sessions, s)
      ) {
        p.add(`${keyPath}.session`, noSession(s, a.id, Object.keys(sessions)));
      }
    }
  }
}
