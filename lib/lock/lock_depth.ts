/**
 * The one nesting bound of `toolhost.lock`, for its reader and its writer alike: a lock
 * `toolhost lock` writes is always one it reads back. Declarations are free-form objects
 * (a library plugin's configuration, say) that comparison canonicalizes recursively, so
 * the reader refuses a lock nested deeper than {@link MAX_LOCK_DEPTH} levels as
 * `LOCK_MISMATCH` (a tampered lock, never a stack overflow), and the writer refuses to
 * write one (naming where, from the workspace's own declarations) instead.
 *
 * @module
 */

import { PreparationFailed } from "../errors/errors.ts";
import { escapeShown } from "../paths/show_path.ts";

/**
 * Most levels of arrays and objects a lock may nest (the whole file is level 1).
 * Generous: a manifest's schemas nest at most 256, an extension's listed tool 128.
 *
 * @example
 * ```ts
 * import { MAX_LOCK_DEPTH } from "./lock_depth.ts";
 * MAX_LOCK_DEPTH; // 1000
 * ```
 */
export const MAX_LOCK_DEPTH = 1000;

/**
 * The keys leading to the first array or object of `v` that lies deeper than `max`
 * levels, or undefined when `v` nests at most `max` levels. Iterative: any depth is safe.
 *
 * @example
 * ```ts
 * import { tooDeepAt } from "./lock_depth.ts";
 * tooDeepAt({ a: [{ b: {} }] }, 3); // ["a", "0", "b"]
 * tooDeepAt({ a: [{ b: {} }] }, 4); // undefined
 * ```
 */
export function tooDeepAt(v: unknown, max: number = MAX_LOCK_DEPTH): string[] | undefined {
  // Each entry links to its parent, so a wide value costs one small node per object.
  type Node = { x: object; depth: number; key: string; up: Node | undefined };
  const stack: Node[] = typeof v === "object" && v !== null
    ? [{ x: v, depth: 0, key: "", up: undefined }]
    : [];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.depth >= max) {
      const path: string[] = [];
      for (let n: Node | undefined = node; n?.up !== undefined; n = n.up) path.push(n.key);
      return path.reverse();
    }
    for (const [key, y] of Object.entries(node.x)) {
      if (typeof y === "object" && y !== null) {
        stack.push({ x: y, depth: node.depth + 1, key, up: node });
      }
    }
  }
  return undefined;
}

/** The first few keys of a path, shown escaped and bounded. */
function showKeys(path: readonly string[]): string {
  const head = path.slice(0, 6).map((k) => escapeShown(k, 64)).join(".");
  return path.length > 6 ? `${head}.…` : head;
}

/**
 * Throw {@link PreparationFailed} when a lock about to be written nests deeper than
 * {@link MAX_LOCK_DEPTH} levels (its reader would refuse it), naming where: the eval
 * and the first keys below it, which come from the workspace's own declarations.
 *
 * @example
 * ```ts
 * import { refuseUnreadableDepth } from "./lock_depth.ts";
 * refuseUnreadableDepth({ lockfileVersion: 2, evals: {} }); // fine: nothing thrown
 * ```
 */
export function refuseUnreadableDepth(lock: unknown): void {
  const at = tooDeepAt(lock);
  if (at === undefined) return;
  const [, evalId, ...rest] = at;
  throw new PreparationFailed(
    `the lock of eval \`${escapeShown(evalId ?? "", 160)}\` would nest deeper than ` +
      `${MAX_LOCK_DEPTH} levels (at ${showKeys(rest)}), which toolhost refuses to read ` +
      "back; flatten that value in toolhost.toml; toolhost.lock was not written",
  );
}
