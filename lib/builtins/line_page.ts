/**
 * One page of lines from an open file, streamed through a fixed buffer: newlines are
 * counted with SIMD byte kernels and only the requested lines are copied and decoded, so
 * a page deep in a 1 GiB file needs about 1 MiB of memory. The file is always scanned to
 * its end to report `totalLines`.
 *
 * A line is its bytes up to and including `\n` (so CRLF and a UTF-8 BOM stay in its text);
 * a final line without `\n` counts. Concatenating the texts of a page reproduces the
 * source range byte for byte.
 *
 * @module
 */

import fs from "node:fs";
import { Buffer } from "node:buffer";
import { setImmediate } from "node:timers";
import { type ByteScanner, withByteScanner } from "../grep/byte_scan.ts";
import { CancelledError } from "../paths/walk.ts";

const NL = 10;

/** A page request. */
export interface PageRequest {
  /** 1-based first line. */
  line: number;
  /** Maximum number of lines. */
  limit: number;
  /** Maximum bytes of complete original lines per page. Default 64 KiB. */
  maxBytes?: number;
  /** Maximum compact JSON bytes of the returned lines. Default 448 KiB. */
  maxJsonBytes?: number;
  /** Read chunk size. Default 1 MiB. */
  chunkBytes?: number;
  /** Cancellation. */
  signal?: AbortSignal;
}

/** One returned line. */
export interface PageLine {
  /** 1-based line number. */
  line: number;
  /** The line's original text, terminator included. */
  text: string;
}

/** A page, or the reason it cannot be returned. */
export type PageOutcome =
  | {
    ok: true;
    startLine: number;
    totalLines: number;
    lines: PageLine[];
    truncated: boolean;
    nextLine?: number;
  }
  | { ok: false; reason: string };

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function oversized(lineNo: number, max: number): string {
  return `Line ${lineNo} is longer than ${max / 1024} KiB and cannot be returned by read; ` +
    "use grep to find text in it.";
}

/** The scan state: skip to the first requested line, collect the page, count the rest. */
class PageScan {
  phase: "skip" | "collect" | "count";
  newlines = 0;
  lines: PageLine[] = [];
  error?: string;
  #parts: Uint8Array[] = [];
  #curLen = 0;
  #pageBytes = 0;
  #jsonBytes = 0;

  constructor(readonly s: ByteScanner, readonly req: Required<PageRequest>) {
    this.phase = req.line === 1 ? "collect" : "skip";
  }

  /** Consume `data[0, n)`. False when the page failed (see `error`). */
  chunk(data: Uint8Array, n: number): boolean {
    let i = 0;
    if (this.phase === "skip") i = this.skip(n);
    if (this.phase === "collect") i = this.collect(data, i, n);
    if (this.error) return false;
    if (this.phase === "count") this.newlines += this.s.count(i, n, NL);
    return true;
  }

  /** Count newlines until the requested line starts; returns where collecting begins. */
  private skip(n: number): number {
    const need = this.req.line - 1 - this.newlines;
    const here = this.s.count(0, n, NL);
    if (here < need) {
      this.newlines += here;
      return n;
    }
    let at = 0;
    for (let k = 0; k < need; k++) at = this.s.find(at, n, NL) + 1;
    this.newlines += need;
    this.phase = "collect";
    return at;
  }

  /** Copy requested lines; returns where counting continues (this chunk's unseen part). */
  private collect(data: Uint8Array, i: number, n: number): number {
    while (i < n) {
      const nl = this.s.find(i, n, NL);
      const end = nl === -1 ? n : nl + 1;
      if (this.#pageBytes + this.#curLen + (end - i) > this.req.maxBytes) {
        if (this.lines.length === 0) this.error = oversized(this.newlines + 1, this.req.maxBytes);
        this.phase = "count";
        return i;
      }
      this.#parts.push(data.slice(i, end));
      this.#curLen += end - i;
      if (nl === -1) return n;
      if (!this.finishLine()) {
        this.phase = "count";
        return i;
      }
      this.newlines++;
      i = end;
      if (this.lines.length >= this.req.limit) {
        this.phase = "count";
        return i;
      }
    }
    return i;
  }

  /** Decode and admit the pending line; false when it does not fit or is invalid. */
  finishLine(): boolean {
    const lineNo = this.newlines + 1;
    const bytes = this.#parts.length === 1 ? this.#parts[0] : Buffer.concat(this.#parts);
    if (bytes.indexOf(0) !== -1) {
      this.error = `Line ${lineNo} contains a NUL byte; the file is not text and cannot be read.`;
      return false;
    }
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      this.error = `Line ${lineNo} is not valid UTF-8; the file cannot be read as text.`;
      return false;
    }
    const json = Buffer.byteLength(JSON.stringify(text)) + 24;
    if (this.#jsonBytes + json > this.req.maxJsonBytes) return false;
    this.#jsonBytes += json;
    this.#pageBytes += bytes.length;
    this.lines.push({ line: lineNo, text });
    this.#parts = [];
    this.#curLen = 0;
    return true;
  }

  /** At end of file: admit a final line without `\n`. False when it failed. */
  finish(): boolean {
    if (this.phase !== "collect" || this.#curLen === 0) return true;
    return this.finishLine() || this.error === undefined;
  }
}

function normalize(request: PageRequest): Required<PageRequest> {
  return {
    line: request.line,
    limit: request.limit,
    maxBytes: request.maxBytes ?? 64 * 1024,
    maxJsonBytes: request.maxJsonBytes ?? 448 * 1024,
    chunkBytes: request.chunkBytes ?? 1024 * 1024,
    signal: request.signal ?? new AbortController().signal,
  };
}

/**
 * Read one page of lines from an open regular file.
 *
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { readLinePage } from "./line_page.ts";
 * const fd = fs.openSync("/etc/hostname", "r");
 * const page = await readLinePage(fd, { line: 1, limit: 10 });
 * fs.closeSync(fd);
 * if (page.ok) console.log(page.totalLines);
 * ```
 */
export function readLinePage(fd: number, request: PageRequest): Promise<PageOutcome> {
  return withByteScanner((s) => readPageWith(s, fd, request));
}

async function readPageWith(
  s: ByteScanner,
  fd: number,
  request: PageRequest,
): Promise<PageOutcome> {
  const req = normalize(request);
  const data = s.reserve(req.chunkBytes);
  const scan = new PageScan(s, req);
  let pos = 0;
  let lastByte = -1;
  for (let round = 1;; round++) {
    const n = fs.readSync(fd, data, 0, req.chunkBytes, pos);
    if (n === 0) break;
    if (!scan.chunk(data, n)) return { ok: false, reason: scan.error as string };
    lastByte = data[n - 1];
    pos += n;
    if (round % 64 === 0) {
      await new Promise((r) => setImmediate(r));
      if (req.signal.aborted) throw new CancelledError();
    }
  }
  if (!scan.finish()) return { ok: false, reason: scan.error as string };
  const totalLines = scan.newlines + (pos > 0 && lastByte !== NL ? 1 : 0);
  const lines = scan.lines;
  const last = lines.length > 0 ? lines[lines.length - 1].line : req.line - 1;
  const truncated = lines.length > 0 && last < totalLines;
  return {
    ok: true,
    startLine: req.line,
    totalLines,
    lines,
    truncated,
    ...(truncated ? { nextLine: last + 1 } : {}),
  };
}
