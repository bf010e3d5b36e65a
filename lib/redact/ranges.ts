/**
 * Finding the occurrences of a set of strings (or byte strings) and splicing a marker in
 * their place, within a window of the source.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { concatBytes } from "../bytes/concat_bytes.ts";

/** A half-open range `[start, end)` of an occurrence. */
export type Range = [number, number];

/**
 * Sort and merge overlapping or touching ranges (in place).
 *
 * @example
 * ```ts
 * import { mergeRanges } from "./ranges.ts";
 * mergeRanges([[4, 6], [0, 2], [1, 3]]); // [[0, 3], [4, 6]]
 * ```
 */
export function mergeRanges(ranges: Range[]): Range[] {
  if (ranges.length < 2) return ranges;
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: Range[] = [ranges[0]];
  for (const r of ranges.slice(1)) {
    const last = out[out.length - 1];
    if (r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push(r);
  }
  return out;
}

/**
 * Bytes as a string of one character per byte (latin1): string search is far faster than
 * `Buffer.indexOf` under Deno, and indexes stay byte offsets.
 *
 * @example
 * ```ts
 * import { byteString } from "./ranges.ts";
 * byteString(new Uint8Array([0xc3, 0xa9])).length; // 2
 * ```
 */
export function byteString(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("latin1");
}

/**
 * `s[start, end)` with every range that overlaps it replaced by one `marker`, even where
 * the range runs past an edge of the window.
 *
 * @example
 * ```ts
 * import { spliceText } from "./ranges.ts";
 * spliceText("key=abcdef", [[4, 10]], 0, 6, "[p]"); // "key=[p]"
 * ```
 */
export function spliceText(
  s: string,
  ranges: readonly Range[],
  start: number,
  end: number,
  marker: string,
): string {
  let out = "";
  let at = start;
  for (const [a, b] of ranges) {
    if (b <= start || a >= end) continue;
    if (a > at) out += s.slice(at, a);
    out += marker;
    at = Math.min(end, b);
  }
  return out + s.slice(at, end);
}

/**
 * Bytes `b[start, end)` with every range that overlaps it replaced by `marker`; with
 * `keepLines`, followed by one `\n` per `\n` the replaced range held.
 *
 * @example
 * ```ts
 * import { spliceBytes } from "./ranges.ts";
 * const b = new TextEncoder().encode("k=ab\ncd;");
 * new TextDecoder().decode(spliceBytes(b, [[2, 7]], 0, 8, new TextEncoder().encode("[p]"), true));
 * // "k=[p]\n;"
 * ```
 */
export function spliceBytes(
  b: Uint8Array,
  ranges: readonly Range[],
  start: number,
  end: number,
  marker: Uint8Array,
  keepLines = false,
): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = start;
  for (const [a, z] of ranges) {
    if (z <= start || a >= end) continue;
    if (a > at) parts.push(b.subarray(at, a));
    parts.push(marker);
    if (keepLines) {
      const lines = countByte(b, Math.max(a, start), Math.min(z, end), 10);
      if (lines > 0) parts.push(new Uint8Array(lines).fill(10));
    }
    at = Math.min(end, z);
  }
  parts.push(b.subarray(at, end));
  // Always a fresh array, also for one part: `b` may be a pooled scanner's buffer that
  // the next search overwrites (native/read.ts), so a view of it must never escape.
  return concatBytes(parts);
}

function countByte(b: Uint8Array, start: number, end: number, byte: number): number {
  let n = 0;
  for (let i = start; i < end; i++) if (b[i] === byte) n++;
  return n;
}
