/**
 * Line-oriented search of one file's bytes held in a {@linkcode ByteScanner}. Files with
 * a NUL byte or invalid UTF-8 are skipped entirely. When the pattern has required
 * literals, candidate lines are found with a SIMD byte search and only those lines are
 * decoded and checked by the regex; the common literal case never decodes a line that
 * does not match. Otherwise the whole file is checked once, then line by line.
 *
 * @module
 */

import { Buffer, isUtf8 } from "node:buffer";
import type { ByteScanner } from "./byte_scan.ts";
import type { GrepPattern } from "./regex.ts";

const NL = 10;

/** Longest match text returned, in UTF-16 code units (longer lines are cut). */
export const MAX_MATCH_TEXT_UNITS = 4096;

/** Receives one matching line; return false to stop searching. */
export type MatchSink = (line: number, text: string) => boolean;

/** Outcome of searching one buffer. */
export type BufferOutcome = "searched" | "skipped" | "stopped";

/**
 * Prepare a scanner for a pattern (stores its literals).
 *
 * @example
 * ```ts
 * import { createByteScanner } from "./byte_scan.ts";
 * import { compileGrepPattern } from "./regex.ts";
 * import { prepareScanner } from "./search.ts";
 * const s = createByteScanner();
 * prepareScanner(s, compileGrepPattern("needle"));
 * ```
 */
export function prepareScanner(scanner: ByteScanner, pattern: GrepPattern): void {
  scanner.setLiterals(pattern.literals ?? []);
}

function lineText(data: Uint8Array, start: number, end: number): string {
  if (end > start && data[end - 1] === 13) end--; // show the line without its CR
  const s = Buffer.from(data.buffer, data.byteOffset + start, end - start).toString("utf8");
  return s.length > MAX_MATCH_TEXT_UNITS ? s.slice(0, MAX_MATCH_TEXT_UNITS) : s;
}

function nextCandidate(
  scanner: ByteScanner,
  nexts: number[],
  from: number,
  len: number,
): number {
  let best = -1;
  for (let i = 0; i < nexts.length; i++) {
    if (nexts[i] !== -1 && nexts[i] < from) nexts[i] = scanner.findLiteral(i, from, len);
    if (nexts[i] !== -1 && (best === -1 || nexts[i] < best)) best = nexts[i];
  }
  return best;
}

function searchLiterals(
  scanner: ByteScanner,
  len: number,
  pattern: GrepPattern,
  sink: MatchSink,
): BufferOutcome {
  const data = scanner.data();
  const nexts = (pattern.literals ?? []).map((_, i) => scanner.findLiteral(i, 0, len));
  let cand = nextCandidate(scanner, nexts, 0, len);
  if (cand === -1) return "searched";
  if (!isUtf8(data.subarray(0, len))) return "skipped";
  let lineNo = 1;
  let counted = 0; // newlines counted up to here
  while (cand !== -1) {
    const start = scanner.findLast(counted, cand, NL) + 1 || counted;
    lineNo += scanner.count(counted, start, NL);
    counted = start;
    const nl = scanner.find(cand, len, NL);
    const end = nl === -1 ? len : nl;
    const hit = pattern.pureLiteral || pattern.line.test(data.subarray(start, end));
    if (hit && !sink(lineNo, lineText(data, start, end))) return "stopped";
    if (nl === -1) break;
    cand = nextCandidate(scanner, nexts, nl + 1, len);
  }
  return "searched";
}

function searchLines(
  scanner: ByteScanner,
  len: number,
  pattern: GrepPattern,
  sink: MatchSink,
): BufferOutcome {
  const data = scanner.data();
  if (!isUtf8(data.subarray(0, len))) return "skipped";
  const text = Buffer.from(data.buffer, data.byteOffset, len).toString("utf8");
  const whole = pattern.prefilter ?? pattern.whole;
  if (whole && !whole.test(text)) return "searched";
  let lineNo = 1;
  for (let start = 0; start <= text.length;) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (start === text.length && end === start) break; // no line after a final newline
    const line = text.slice(start, end);
    if (pattern.line.test(line)) {
      let shown = line.endsWith("\r") ? line.slice(0, -1) : line;
      if (shown.length > MAX_MATCH_TEXT_UNITS) shown = shown.slice(0, MAX_MATCH_TEXT_UNITS);
      if (!sink(lineNo, shown)) return "stopped";
    }
    lineNo++;
    start = end + 1;
  }
  return "searched";
}

/**
 * Search the first `len` bytes of `scanner.data()` line by line (line numbers from 1).
 * Returns `"skipped"` for binary (NUL) or invalid UTF-8 content, `"stopped"` when the
 * sink asked to stop.
 *
 * @example
 * ```ts
 * import { createByteScanner } from "./byte_scan.ts";
 * import { compileGrepPattern } from "./regex.ts";
 * import { prepareScanner, searchBuffer } from "./search.ts";
 * const s = createByteScanner();
 * const p = compileGrepPattern("b+");
 * prepareScanner(s, p);
 * const bytes = new TextEncoder().encode("a\nbb\n");
 * s.reserve(bytes.length).set(bytes);
 * searchBuffer(s, bytes.length, p, (line, text) => (console.log(line, text), true)); // 2 "bb"
 * ```
 */
export function searchBuffer(
  scanner: ByteScanner,
  len: number,
  pattern: GrepPattern,
  sink: MatchSink,
): BufferOutcome {
  if (len === 0) return "searched";
  if (scanner.find(0, len, 0) !== -1) return "skipped";
  return pattern.literals
    ? searchLiterals(scanner, len, pattern, sink)
    : searchLines(scanner, len, pattern, sink);
}
