/**
 * The plain shape of a JSON-RPC request, checked without the MCP SDK (see
 * plain_request.ts, which says what the SDK's zod parse makes of it, and
 * early_answers.ts): an object with exactly the keys `jsonrpc` ("2.0"), `id` (a string or
 * a safe integer), `method` (a string) and optionally `params` (a plain object with no own
 * `_meta` or `__proto__` key).
 *
 * @module
 */

/**
 * The request zod would return for `value` (a fresh object, keys in the schema's order),
 * or undefined when zod must decide.
 *
 * @example
 * ```ts
 * import { plainRequestOf } from "./plain_shape.ts";
 * plainRequestOf({ jsonrpc: "2.0", id: 1, method: "ping" }); // { jsonrpc: "2.0", id: 1, method: "ping" }
 * plainRequestOf({ jsonrpc: "2.0", method: "x" }); // undefined: a notification
 * ```
 */
export function plainRequestOf(value: unknown): Record<string, unknown> | undefined {
  if (!isRecord(value) || Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  let keys = 0;
  for (const key in value) {
    if (key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params") {
      return undefined;
    }
    keys++;
  }
  if (keys !== Object.keys(value).length) return undefined;
  const { jsonrpc, id, method, params } = value;
  if (jsonrpc !== "2.0" || typeof method !== "string") return undefined;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  if (!hasOwn(value, "params")) return { jsonrpc, id, method };
  if (!isRecord(params) || Object.getPrototypeOf(params) !== Object.prototype) return undefined;
  if (hasOwn(params, "_meta") || hasOwn(params, "__proto__")) return undefined;
  return { jsonrpc, id, method, params };
}

/**
 * A non-null, non-array object.
 *
 * @example
 * ```ts
 * import { isRecord } from "./plain_shape.ts";
 * isRecord({}); // true
 * isRecord([]); // false
 * ```
 */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Whether `o` has the own property `key`.
 *
 * @example
 * ```ts
 * import { hasOwn } from "./plain_shape.ts";
 * hasOwn({ a: 1 }, "a"); // true
 * ```
 */
export function hasOwn(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}
