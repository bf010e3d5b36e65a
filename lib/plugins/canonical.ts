/**
 * Canonical JSON (object keys sorted by UTF-16 code units, no whitespace) and its SHA-256,
 * for audit records that must identify arguments without revealing them.
 *
 * @module
 */

import { createHash } from "node:crypto";

/**
 * Canonical JSON text of a JSON value: keys sorted, no insignificant whitespace,
 * `undefined` members dropped (as `JSON.stringify` does).
 *
 * @example
 * ```ts
 * import { canonicalJson } from "./canonical.ts";
 * canonicalJson({ b: 1, a: [true, { d: null, c: "x" }] }); // '{"a":[true,{"c":"x","d":null}],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  }
  if (typeof value === "object" && value !== null) {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * Lowercase hex SHA-256 of the canonical JSON of `value`.
 *
 * @example
 * ```ts
 * import { canonicalSha256 } from "./canonical.ts";
 * canonicalSha256({ b: 1, a: 2 }) === canonicalSha256({ a: 2, b: 1 }); // true
 * ```
 */
export function canonicalSha256(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value), "utf8").digest("hex");
}
