/**
 * Eval scope: the eval's Artifact, its descendants, and its references.
 *
 * @module
 */

import type { Artifact, Workspace } from "./types.ts";

/**
 * Every Artifact strictly inside folder Artifact `id`, in manifest order.
 *
 * @example
 * ```ts
 * import { descendantsOf } from "./scope.ts";
 * // descendantsOf(ws, "app") → [spec, ...]
 * ```
 */
export function descendantsOf(ws: Workspace, id: string): Artifact[] {
  const out: Artifact[] = [];
  const stack = [id];
  while (stack.length > 0) {
    const a = ws.artifacts.get(stack.pop()!);
    if (!a) continue;
    for (const childId of Object.values(a.children)) {
      const child = ws.artifacts.get(childId);
      if (child) {
        out.push(child);
        stack.push(childId);
      }
    }
  }
  return out;
}

/**
 * The ids admitted to an eval, in a stable order: its Artifact, descendants, references.
 *
 * @example
 * ```ts
 * import { evalScope } from "./scope.ts";
 * // evalScope(ws, "app/review") → ["app", "spec", "notes"]
 * ```
 */
export function evalScope(ws: Workspace, evalId: string): string[] {
  const ev = ws.evals.get(evalId);
  if (!ev) return [];
  return artifactScope(ws, ev.artifactId, ev.references);
}

/**
 * The scope of an Artifact with extra references: itself, descendants, references.
 *
 * @example
 * ```ts
 * import { artifactScope } from "./scope.ts";
 * // artifactScope(ws, "app", []) → ["app", "spec"]
 * ```
 */
export function artifactScope(ws: Workspace, artifactId: string, references: string[]): string[] {
  const ids = [artifactId, ...descendantsOf(ws, artifactId).map((a) => a.id), ...references];
  return [...new Set(ids)];
}
