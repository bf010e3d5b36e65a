/**
 * A linear byte pre-check of json-protocol stdout before `JSON.parse`: its compact size
 * (insignificant whitespace aside) and its nesting depth. Parsing up to 16 MiB of `[[[…`
 * or millions of `{}` costs seconds and hundreds of MiB before the per-block limits can
 * refuse it; no valid result is larger than the 8 MiB result bound, so the work is
 * refused first. Invalid JSON passes through to the parser, which names it.
 *
 * @module
 */

/** The verdict of {@link precheckJson}. */
export type JsonPrecheck = "ok" | "too-large" | "too-deep";

/** Deepest nesting of arrays and objects a json-protocol result may have. */
export const MAX_JSON_DEPTH = 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Scan `bytes` (UTF-8 JSON text): "too-large" when more than `maxCompactBytes` bytes are
 * significant, "too-deep" when arrays/objects nest deeper than `maxDepth`.
 *
 * @example
 * ```ts
 * import { precheckJson } from "./json_precheck.ts";
 * const bytes = new TextEncoder().encode('{"a": [1, 2]}');
 * precheckJson(bytes, 1024, 8); // "ok"
 * precheckJson(bytes, 4, 8); // "too-large"
 * precheckJson(bytes, 1024, 1); // "too-deep"
 * ```
 */
export function precheckJson(
  bytes: Uint8Array,
  maxCompactBytes: number,
  maxDepth: number = MAX_JSON_DEPTH,
): JsonPrecheck {
  let insignificant = 0;
  let depth = 0;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      i = stringEnd(bytes, i + 1);
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) insignificant++;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return "too-deep";
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return n - insignificant > maxCompactBytes ? "too-large" : "ok";
}

/** Index of the quote closing a string whose text starts at `from` (or the end). */
function stringEnd(bytes: Uint8Array, from: number): number {
  let i = from;
  for (;;) {
    const q = bytes.indexOf(QUOTE, i);
    if (q === -1) return bytes.length;
    // Escaped when preceded by an odd run of backslashes.
    let k = q - 1;
    while (k >= from && bytes[k] === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q;
    i = q + 1;
  }
}
