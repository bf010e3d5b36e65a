/**
 * Bounded nesting for parsed JSON values from outside (an extension's tool listing):
 * recursive walks (canonical hashing, schema compilation) overflow the stack on values
 * nested thousands deep, so such values are screened out first, iteratively.
 *
 * @module
 */

/**
 * Whether arrays and objects in `value` nest at most `maxDepth` levels (a scalar is 0,
 * `[]` and `{}` are 1). Iterative: any depth is safe to ask about.
 *
 * @example
 * ```ts
 * import { nestingWithin } from "./json_depth.ts";
 * nestingWithin({ a: [1, { b: 2 }] }, 3); // true
 * nestingWithin({ a: [1, { b: 2 }] }, 2); // false
 * ```
 */
export function nestingWithin(value: unknown, maxDepth: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth + 1 > maxDepth) return false;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) {
      if (typeof c === "object" && c !== null) stack.push([c, depth + 1]);
    }
  }
  return true;
}
