/**
 * Finding the occurrences of a set of strings (or byte strings) and splicing a marker in
 * their place, within a window of the source.
 *
 * @module
 */

import { Buffer } from "node:buffer";

/** A half-open range `[start, end)` of an occurrence. */
export type Range = [number, number];

/** Sort and merge overlapping or touching ranges. */
function merged(ranges: Range[]): Range[] {
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
 * Every occurrence of any of `needles` in `s`, merged.
 *
 * @example
 * ```ts
 * import { textRanges } from "./ranges.ts";
 * textRanges("xabcx abc", ["abc"]); // [[1, 4], [6, 9]]
 * ```
 */
export function textRanges(s: string, needles: readonly string[]): Range[] {
  const out: Range[] = [];
  for (const n of needles) {
    for (let at = s.indexOf(n); at >= 0; at = s.indexOf(n, at + 1)) out.push([at, at + n.length]);
  }
  return merged(out);
}

/**
 * Every occurrence of any of `needles` in `b`, merged.
 *
 * @example
 * ```ts
 * import { byteRanges } from "./ranges.ts";
 * byteRanges(new TextEncoder().encode("xabc"), [new TextEncoder().encode("abc")]); // [[1, 4]]
 * ```
 */
export function byteRanges(b: Uint8Array, needles: readonly Uint8Array[]): Range[] {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const out: Range[] = [];
  for (const n of needles) {
    for (let at = buf.indexOf(n); at >= 0; at = buf.indexOf(n, at + 1)) {
      out.push([at, at + n.length]);
    }
  }
  return merged(out);
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
  return Buffer.concat(parts);
}

function countByte(b: Uint8Array, start: number, end: number, byte: number): number {
  let n = 0;
  for (let i = start; i < end; i++) if (b[i] === byte) n++;
  return n;
}
