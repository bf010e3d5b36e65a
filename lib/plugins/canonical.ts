/**
 * Canonical JSON (object keys sorted by UTF-16 code units, no whitespace) and its SHA-256,
 * for audit records that must identify arguments without revealing them. The canonical
 * form is the lock file's (lib/lock/canonical.ts), so both hash arguments the same way.
 *
 * @module
 */

import { canonicalJson, sha256Hex } from "../lock/canonical.ts";

export { canonicalJson };

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
  return sha256Hex(canonicalJson(value));
}
