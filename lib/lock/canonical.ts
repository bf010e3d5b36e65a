/**
 * Canonical JSON (object keys sorted at every depth) and SHA-256 over it: the hashes a
 * lock file records for descriptions and input schemas, and its own stable rendering.
 *
 * @module
 */

import { createHash } from "node:crypto";

function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (typeof v === "object" && v !== null) {
    // No prototype: a key named `__proto__` stays an own key.
    const out: Record<string, unknown> = Object.create(null);
    for (const k of Object.keys(v).sort()) {
      out[k] = sortDeep((v as Record<string, unknown>)[k]);
    }
    return out;
  }
  return v;
}

/**
 * Compact JSON with object keys sorted at every depth (arrays keep their order).
 *
 * @example
 * ```ts
 * import { canonicalJson } from "./canonical.ts";
 * canonicalJson({ b: 1, a: { d: [2, 1], c: null } }); // '{"a":{"c":null,"d":[2,1]},"b":1}'
 * ```
 */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(sortDeep(v)) ?? "null";
}

/**
 * Sorted-key JSON with 2-space indentation and a trailing newline (reviewable files).
 *
 * @example
 * ```ts
 * import { stableJson } from "./canonical.ts";
 * stableJson({ b: 1, a: 2 }); // '{\n  "a": 2,\n  "b": 1\n}\n'
 * ```
 */
export function stableJson(v: unknown): string {
  return `${JSON.stringify(sortDeep(v), null, 2)}\n`;
}

/**
 * Lowercase hex SHA-256 of a string's UTF-8 bytes.
 *
 * @example
 * ```ts
 * import { sha256Hex } from "./canonical.ts";
 * sha256Hex("").slice(0, 8); // "e3b0c442"
 * ```
 */
export function sha256Hex(s: string): string {
  return createHash("sha256").update(s, "utf8").digest("hex");
}

/**
 * The hashes a lock records for one listed tool: its description and its canonical
 * input schema.
 *
 * @example
 * ```ts
 * import { toolHashes } from "./canonical.ts";
 * toolHashes("Read a file.", { type: "object" }).inputSchema.length; // 64
 * ```
 */
export function toolHashes(
  description: unknown,
  inputSchema: unknown,
): { description: string; inputSchema: string } {
  return {
    description: sha256Hex(typeof description === "string" ? description : ""),
    inputSchema: sha256Hex(canonicalJson(inputSchema ?? null)),
  };
}
