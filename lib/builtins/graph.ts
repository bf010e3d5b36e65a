/**
 * The `graph` built-in (`args = []`): the whole current project structure — Artifacts
 * with kind, workspace-relative path, parent and children, evals, sessions and declared
 * tool names per view. Never physical paths.
 *
 * @module
 */

import { jsonResult, LIMITS, type ToolResult } from "../results/types.ts";
import type { Artifact, Workspace } from "../workspace/types.ts";
import { jsonBytes } from "./common.ts";

/** One Artifact in the graph. */
export interface GraphArtifact {
  /** Artifact id. */
  id: string;
  /** Folder or file. */
  kind: string;
  /** Workspace-relative path. */
  path: string;
  /** Enclosing folder Artifact, if any. */
  parent?: string;
  /** Child Artifacts: logical path → id. */
  children: Record<string, string>;
  /** Evals: name → audience and references. */
  evals: Record<string, { audience: string; references: string[] }>;
  /** Declared tool names per view. */
  tools: { agent: string[]; human: string[] };
  /** Declared tool session names. */
  sessions: string[];
}

function describe(a: Artifact): GraphArtifact {
  const evals: GraphArtifact["evals"] = {};
  for (const [name, e] of Object.entries(a.evals)) {
    evals[name] = { audience: e.audience, references: [...e.references] };
  }
  return {
    id: a.id,
    kind: a.kind,
    path: a.relPath,
    ...(a.parent !== undefined ? { parent: a.parent } : {}),
    children: { ...a.children },
    evals,
    tools: { agent: Object.keys(a.agentTools), human: Object.keys(a.humanTools) },
    sessions: Object.keys(a.sessions),
  };
}

/**
 * Describe a workspace (Artifacts in manifest order), stopping with `truncated` at the
 * JSON block cap.
 *
 * @example
 * ```ts
 * import { workspaceGraph } from "./graph.ts";
 * // workspaceGraph(ws) → { artifacts: [...], truncated: false }
 * ```
 */
export function workspaceGraph(
  ws: Workspace,
  maxBytes: number = LIMITS.maxJsonBytes,
): { artifacts: GraphArtifact[]; truncated: boolean } {
  let budget = maxBytes - jsonBytes({ artifacts: [], truncated: false });
  const artifacts: GraphArtifact[] = [];
  for (const a of ws.artifacts.values()) {
    const d = describe(a);
    const cost = jsonBytes(d) + (artifacts.length > 0 ? 1 : 0);
    if (cost > budget) return { artifacts, truncated: true };
    budget -= cost;
    artifacts.push(d);
  }
  return { artifacts, truncated: false };
}

/**
 * Run `graph`: one json block.
 *
 * @example
 * ```ts
 * import { runGraph } from "./graph.ts";
 * // runGraph(env.workspace)
 * ```
 */
export function runGraph(ws: Workspace): ToolResult {
  return jsonResult(workspaceGraph(ws));
}
