/**
 * Deep-frozen copies: what hooks receive, so no hook can rewrite a call's arguments or
 * the result another hook sees.
 *
 * @module
 */

/**
 * A deep copy of a JSON-like value with every object and array frozen.
 *
 * @example
 * ```ts
 * import { frozenCopy } from "./freeze.ts";
 * const args = frozenCopy({ a: { b: [1] } });
 * Object.isFrozen(args.a.b); // true
 * ```
 */
export function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

function deepFreeze<T>(v: T): T {
  if (typeof v !== "object" || v === null || Object.isFrozen(v)) return v;
  for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  return Object.freeze(v);
}
