/**
 * The json protocol's view of an eval scope: canonical physical paths, kinds and
 * logical child maps, plus `{ artifact = ID }` argv operands.
 *
 * @module
 */

import type { ScopeEntry } from "../protocols/json_request.ts";
import type { ArgvElement, Workspace } from "../workspace/types.ts";

/**
 * Scope entries for every admitted Artifact.
 *
 * @example
 * ```ts
 * import { scopeEntries } from "./scope_context.ts";
 * // scopeEntries(ws, ["app", "spec"]) → { app: { path, kind: "folder", children: { rules: "spec" } }, ... }
 * ```
 */
export function scopeEntries(ws: Workspace, scope: readonly string[]): Record<string, ScopeEntry> {
  const out: Record<string, ScopeEntry> = {};
  const admitted = new Set(scope);
  for (const id of scope) {
    const a = ws.artifacts.get(id);
    if (!a) continue;
    const children: Record<string, string> = {};
    for (const [logical, childId] of Object.entries(a.children)) {
      if (admitted.has(childId)) children[logical] = childId;
    }
    out[id] = { path: a.physicalPath, kind: a.kind, children };
  }
  return out;
}

/**
 * Expand argv: literals stay as written; `{ artifact = ID }` becomes its physical path.
 *
 * @example
 * ```ts
 * import { expandArtifactOperands } from "./scope_context.ts";
 * // expandArtifactOperands(ws, ["--spec", { artifact: "spec" }]) → ["--spec", "/ws/app/rules"]
 * ```
 */
export function expandArtifactOperands(ws: Workspace, args: readonly ArgvElement[]): string[] {
  return args.map((e) => (typeof e === "string" ? e : ws.artifacts.get(e.artifact)!.physicalPath));
}
