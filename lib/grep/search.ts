/**
 * Line-oriented search of one file's bytes held in a {@linkcode ByteScanner}. Files with
 * a NUL byte or invalid UTF-8 are skipped entirely. When the pattern has required
 * literals, candidate lines are found with a SIMD byte search and only those lines are
 * decoded and checked by the regex; the common literal case never decodes a line that
 * does not match. Otherwise the file is checked in line-aligned windows of about 64 KiB
 * by one whole-window test (the V8 prefilter or re2js), and only the lines of a window
 * that passes are tested one by one (by the V8 prefilter when there is one: it holds for
 * a line exactly when the pattern does, see fast_prefilter.ts; otherwise by re2js).
 *
 * A search can pause: with a {@linkcode Deadline}, it looks at the clock about every
 * 64 KiB and, once the deadline has expired, returns `"paused"` with its place kept in a
 * {@linkcode SearchCursor}; calling again with that cursor goes on from there.
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

/** Outcome of searching one buffer; `"paused"`: call again with the same cursor. */
export type BufferOutcome = "searched" | "skipped" | "stopped" | "paused";

/** Bytes searched between two looks at the deadline, and the whole-test window size. */
const STRIDE_BYTES = 64 * 1024;

/** Says when a long search should pause (e.g. a `TimeSlice` of paths/walk.ts). */
export interface Deadline {
  /** True once the search should pause. */
  expired(): boolean;
}

/** Where the search of one buffer stands. */
export interface SearchCursor {
  /** Byte offset of the next line to search (a line start). */
  pos: number;
  /** Byte offset (a line start) up to which newlines are counted. */
  counted: number;
  /** The line number at `counted`. */
  line: number;
  /** The NUL check has run. */
  started: boolean;
  /** The buffer is known to be valid UTF-8. */
  valid: boolean;
}

/**
 * A cursor at the start of a buffer.
 *
 * @example
 * ```ts
 * import { startCursor } from "./search.ts";
 * startCursor().line; // 1
 * ```
 */
export function startCursor(): SearchCursor {
  return { pos: 0, counted: 0, line: 1, started: false, valid: false };
}

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
  cur: SearchCursor,
  deadline: Deadline | undefined,
): BufferOutcome {
  const data = scanner.data();
  const from = cur.pos;
  const nexts = (pattern.literals ?? []).map((_, i) => scanner.findLiteral(i, from, len));
  let cand = nextCandidate(scanner, nexts, from, len);
  if (cand === -1) return "searched";
  if (!cur.valid) {
    if (!isUtf8(data.subarray(0, len))) return "skipped";
    cur.valid = true;
  }
  let lineNo = cur.line;
  let counted = cur.counted; // newlines counted up to here
  let checkAt = from + STRIDE_BYTES;
  while (cand !== -1) {
    const start = scanner.findLast(counted, cand, NL) + 1 || counted;
    lineNo += scanner.count(counted, start, NL);
    counted = start;
    const nl = scanner.find(cand, len, NL);
    const end = nl === -1 ? len : nl;
    const hit = pattern.pureLiteral || pattern.line.test(data.subarray(start, end));
    if (hit && !sink(lineNo, lineText(data, start, end))) return "stopped";
    if (nl === -1) break;
    if (nl >= checkAt && deadline) {
      checkAt = nl + STRIDE_BYTES;
      if (deadline.expired()) {
        cur.pos = nl + 1;
        cur.counted = counted;
        cur.line = lineNo;
        return "paused";
      }
    }
    cand = nextCandidate(scanner, nexts, nl + 1, len);
  }
  return "searched";
}

/** Test each line of a window's text; returns the next line number, or -1 when stopped. */
function searchWindowLines(
  text: string,
  lineNo: number,
  pattern: GrepPattern,
  sink: MatchSink,
): number {
  const test = pattern.prefilter ?? pattern.line;
  for (let start = 0; start <= text.length;) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (start === text.length && end === start) break; // no line after a final newline
    const line = text.slice(start, end);
    if (test.test(line)) {
      let shown = line.endsWith("\r") ? line.slice(0, -1) : line;
      if (shown.length > MAX_MATCH_TEXT_UNITS) shown = shown.slice(0, MAX_MATCH_TEXT_UNITS);
      if (!sink(lineNo, shown)) return -1;
    }
    lineNo++;
    start = end + 1;
  }
  return lineNo;
}

function searchLines(
  scanner: ByteScanner,
  len: number,
  pattern: GrepPattern,
  sink: MatchSink,
  cur: SearchCursor,
  deadline: Deadline | undefined,
): BufferOutcome {
  const data = scanner.data();
  if (!cur.valid) {
    if (!isUtf8(data.subarray(0, len))) return "skipped";
    cur.valid = true;
  }
  const whole = pattern.prefilter ?? pattern.whole;
  let pos = cur.pos;
  while (pos < len) {
    // A window ends after a newline, so each line lies wholly in one window.
    const nl = pos + STRIDE_BYTES >= len ? -1 : scanner.find(pos + STRIDE_BYTES, len, NL);
    const end = nl === -1 ? len : nl + 1;
    const text = Buffer.from(data.buffer, data.byteOffset + pos, end - pos).toString("utf8");
    // A one-line window (a long line) skips the whole-window test, which would cost as
    // much as testing the line itself.
    if (!whole || scanner.find(pos, end - 1, NL) === -1 || whole.test(text)) {
      const first = cur.line + scanner.count(cur.counted, pos, NL);
      const next = searchWindowLines(text, first, pattern, sink);
      if (next === -1) return "stopped";
      cur.counted = end;
      cur.line = next;
    }
    pos = end;
    if (pos < len && deadline?.expired()) {
      cur.pos = pos;
      return "paused";
    }
  }
  return "searched";
}

/**
 * Search the first `len` bytes of `scanner.data()` line by line (line numbers from 1).
 * Returns `"skipped"` for binary (NUL) or invalid UTF-8 content, `"stopped"` when the
 * sink asked to stop, `"paused"` when `deadline` expired first (call again with the same
 * `cursor` and unchanged data to go on).
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
  cursor: SearchCursor = startCursor(),
  deadline?: Deadline,
): BufferOutcome {
  if (len === 0) return "searched";
  if (!cursor.started) {
    if (scanner.find(0, len, 0) !== -1) return "skipped";
    cursor.started = true;
  }
  return pattern.literals
    ? searchLiterals(scanner, len, pattern, sink, cursor, deadline)
    : searchLines(scanner, len, pattern, sink, cursor, deadline);
}
