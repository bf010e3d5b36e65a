/**
 * Redacting the data of a byte scanner (lib/grep) in place, with the scanner's own SIMD
 * literal search: the forms of the protected values are stored as extra literals after
 * the search's own, found, and replaced (line breaks kept, so line numbers stay true).
 * Far cheaper than searching the bytes from JavaScript.
 *
 * @module
 */

import type { ByteScanner, ScanLiteral } from "../grep/byte_scan.ts";
import { mergeRanges, type Range, spliceBytes } from "./ranges.ts";
import { type Protector, REDACTED } from "./types.ts";

const MARKER = new TextEncoder().encode(REDACTED);
/** Most bytes of forms stored as literals (the scanner's literal area is 64 KiB in all). */
const MAX_LITERAL_BYTES = 16 * 1024;

/**
 * `literals` followed by the forms of `protect`'s values, or `literals` alone when there
 * are none or they would not fit (then {@link redactScanned} searches from JavaScript).
 *
 * @example
 * ```ts
 * import { Redactor } from "./redactor.ts";
 * import { withProtectedLiterals } from "./scan.ts";
 * const r = new Redactor();
 * r.add("tok-123456");
 * withProtectedLiterals([], r).length > 0; // true
 * ```
 */
export function withProtectedLiterals(
  literals: ScanLiteral[],
  protect: Protector | undefined,
): ScanLiteral[] {
  if (!protect?.active) return literals;
  const needles = protect.needles();
  const bytes = needles.reduce((n, b) => n + b.byteLength, 0);
  if (bytes > MAX_LITERAL_BYTES) return literals;
  return [...literals, ...needles.map((b) => ({ bytes: b, mask: null }))];
}

/**
 * Replace the values in the scanner's first `len` bytes; returns the new length. `first`
 * is the index of the first protected literal (the search's own literals come before),
 * or -1 when they were not stored.
 *
 * @example
 * ```ts
 * // const n = redactScanned(scanner, protect, query.length, got);
 * ```
 */
export function redactScanned(
  scanner: ByteScanner,
  protect: Protector | undefined,
  first: number,
  len: number,
): number {
  if (!protect?.active) return len;
  const data = scanner.data().subarray(0, len);
  let out: Uint8Array;
  if (first < 0) out = protect.bytes(data, 0, len, true);
  else {
    const merged = scannedRanges(scanner, protect, first, len);
    if (merged.length === 0) return len;
    const shrunk = spliceInPlace(data, merged);
    if (shrunk >= 0) return shrunk;
    out = spliceBytes(data, merged, 0, len, MARKER, true);
  }
  if (out === data) return len;
  scanner.reserve(out.byteLength).set(out);
  return out.byteLength;
}

/**
 * Where the forms of `protect`'s values occur in the scanner's first `len` bytes (merged
 * ranges), found with the literals stored from index `first` (see
 * {@link withProtectedLiterals}).
 *
 * @example
 * ```ts
 * // const ranges = scannedRanges(scanner, protect, 0, n);
 * ```
 */
export function scannedRanges(
  scanner: ByteScanner,
  protect: Protector,
  first: number,
  len: number,
): Range[] {
  // Split by line breaks, a form is no literal: found from JavaScript (one look at the ends
  // of each line unless they join base64 or hex characters).
  const ranges: Range[] = protect.splitByteRanges(scanner.data().subarray(0, len));
  protect.needles().forEach((n, i) => {
    for (let at = scanner.findLiteral(first + i, 0, len); at >= 0;) {
      ranges.push([at, at + n.byteLength]);
      at = at + 1 < len ? scanner.findLiteral(first + i, at + 1, len) : -1;
    }
  });
  return mergeRanges(ranges);
}

/**
 * Replace `ranges` in `data` in place (the marker, then the range's line breaks) and move
 * the rest left; returns the new length, or -1 (nothing changed) when a range is shorter
 * than its replacement. In place because fresh megabyte buffers cost page faults.
 */
function spliceInPlace(data: Uint8Array, ranges: readonly Range[]): number {
  const lines = ranges.map(([a, z]) => {
    let n = 0;
    for (let i = a; i < z; i++) if (data[i] === 10) n++;
    return n;
  });
  if (ranges.some(([a, z], i) => z - a < MARKER.byteLength + lines[i])) return -1;
  let to = ranges[0][0];
  ranges.forEach(([, z], i) => {
    data.set(MARKER, to);
    to += MARKER.byteLength;
    data.fill(10, to, to + lines[i]);
    to += lines[i];
    const next = i + 1 < ranges.length ? ranges[i + 1][0] : data.byteLength;
    data.copyWithin(to, z, next);
    to += next - z;
  });
  return to;
}
