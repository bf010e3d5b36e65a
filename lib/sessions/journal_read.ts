/**
 * Reading a journal back (journal.ts writes it), bounded, because the file may be forged —
 * a cloned repository can ship `.toolhost/state`, and any tool may write in it. However
 * large or hostile the file, a read holds at most one 64 KiB chunk, one line of
 * {@link MAX_LINE_BYTES} and {@link MAX_JOURNAL_GROUPS} tracked admissions:
 *
 * - at most {@link MAX_JOURNAL_BYTES} are read; a larger file (or one that is not a
 *   regular file) is refused as a whole;
 * - a line longer than {@link MAX_LINE_BYTES}, one that is not a JSON object, or one with
 *   an unknown `op` is skipped and counted as `malformed` (a record line is ~200 bytes);
 *   an unterminated last line is a write torn by a crash and is skipped uncounted;
 * - an admission without a complete identity is `rejected` and never returned;
 * - past {@link MAX_JOURNAL_GROUPS} unretired admissions the read stops and the journal is
 *   `overfull`: what it names beyond the bound was not read, so a caller must not take
 *   the journal as handled (a sweep keeps its folder and reports it).
 *
 * @module
 */

import { parseStoredRecord, type ProcessRecord } from "../process/proc_identity.ts";
import { streamRecordFile } from "./record_file.ts";

/** Which invocation a group belongs to. */
export type JournalRole = "start" | "stop" | "call";

/** One admitted, not yet retired group. */
export interface JournalEntry {
  /** The invocation kind. */
  role: JournalRole;
  /** The group's identity. */
  record: ProcessRecord;
}

/** What a journal file holds. */
export interface JournalContents {
  /** The admitted, not yet retired groups with a complete identity. */
  entries: JournalEntry[];
  /**
   * Unretired admissions refused as incomplete or malformed (a null or missing start
   * time, boot id or tag, pid 0, 1 or negative, pgid other than pid, an unknown role, ...).
   * toolhost never writes such an entry on Linux; nothing they name is ever signalled.
   */
  rejected: number;
  /** The whole file was refused: not a regular file (a symlink, FIFO, ...) or too large. */
  refusedFile: boolean;
  /** Lines skipped as malformed (not JSON, not an object, unknown op, over-long). */
  malformed: number;
  /**
   * More than {@link MAX_JOURNAL_GROUPS} unretired admissions: the read stopped there, and
   * `entries` holds only the first ones.
   */
  overfull: boolean;
}

/** Largest journal a sweep reads (64 MiB: hundreds of thousands of bound calls). */
export const MAX_JOURNAL_BYTES = 64 * 1024 * 1024;

/** Longest journal line, bytes (toolhost writes ~200). Longer ones are malformed. */
export const MAX_LINE_BYTES = 4096;

/**
 * Most unretired admissions (kept and rejected) one read tracks. toolhost has one per
 * group still running, so a real journal holds a handful; past this bound the journal is
 * `overfull`.
 */
export const MAX_JOURNAL_GROUPS = 1024;

const ROLES: readonly string[] = ["start", "stop", "call"];

/** Lines that are not flat JSON objects parsed in full, per journal (see `#parse`). */
const MAX_FULL_PARSES = 1000;

const STR = String.raw`"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"`;
const NUM = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`;
const MEMBER = String.raw`\s*${STR}\s*:\s*(?:${STR}|${NUM}|null|true|false)\s*`;

/**
 * A flat JSON object of strings, numbers, booleans and nulls — the only lines toolhost
 * writes; a strict subset of JSON, so `JSON.parse` never throws on a line it accepts.
 */
const FLAT_OBJECT = new RegExp(String.raw`^\s*\{(?:${MEMBER}(?:,${MEMBER})*|\s*)\}\s*$`);

/**
 * The identity key of an admission or a retirement.
 *
 * @example
 * ```ts
 * import { journalKey } from "./journal_read.ts";
 * journalKey(7, 1); // "[7,1]"
 * ```
 */
export function journalKey(pid: unknown, startTime: unknown): string {
  return JSON.stringify([pid, startTime ?? null]);
}

/** Folds journal lines, one at a time, into bounded {@link JournalContents}. */
class JournalFold {
  readonly live = new Map<string, JournalEntry>();
  readonly rejected = new Set<string>();
  /** Rejected admissions past the bound: counted, no longer tracked. */
  untracked = 0;
  malformed = 0;
  overfull = false;

  /** Take one line; false once the journal is overfull (stop reading). */
  line(line: string): boolean {
    if (line.trim() === "") return true;
    const o = this.#parse(line);
    if (o === undefined) {
      this.malformed++;
      return true;
    }
    if (o.op === "retire") {
      this.live.delete(journalKey(o.pid, o.startTime));
      this.rejected.delete(journalKey(o.pid, o.startTime));
    } else if (o.op === "admit") {
      return this.#admit(o);
    } else {
      this.malformed++;
    }
    return true;
  }

  /**
   * The line as a JSON object, or undefined. The lines toolhost writes are flat objects,
   * recognised by a pattern first: a thrown parse error costs tens of microseconds and a
   * forged journal may hold millions of lines. Other lines get a real parse only
   * {@link MAX_FULL_PARSES} times per journal (a record that grew a nested field still
   * reads back), then count as malformed unparsed.
   */
  #parse(line: string): Record<string, unknown> | undefined {
    if (!FLAT_OBJECT.test(line)) {
      if (this.#fullParses >= MAX_FULL_PARSES) return undefined;
      this.#fullParses++;
    }
    try {
      const v: unknown = JSON.parse(line);
      return typeof v === "object" && v !== null && !Array.isArray(v)
        ? v as Record<string, unknown>
        : undefined;
    } catch {
      return undefined;
    }
  }

  #fullParses = 0;

  #admit(o: Record<string, unknown>): boolean {
    const record = parseStoredRecord(o);
    const k = journalKey(o.pid, o.startTime);
    if (record !== null && typeof o.role === "string" && ROLES.includes(o.role)) {
      if (!this.live.has(k) && this.live.size >= MAX_JOURNAL_GROUPS) {
        this.overfull = true;
        return false;
      }
      this.live.set(k, { role: o.role as JournalRole, record });
    } else if (this.rejected.has(k) || this.rejected.size < MAX_JOURNAL_GROUPS) {
      this.rejected.add(k);
    } else {
      this.untracked++;
    }
    return true;
  }

  contents(): JournalContents {
    return {
      entries: [...this.live.values()],
      rejected: this.rejected.size + this.untracked,
      refusedFile: false,
      malformed: this.malformed,
      overfull: this.overfull,
    };
  }
}

/**
 * Parse journal text into its unretired entries and count the refused admissions and
 * malformed lines (see the module documentation for the bounds). Records are parsed
 * strictly (`parseStoredRecord`): the file may be forged.
 *
 * @example
 * ```ts
 * import { inspectJournal } from "./journal_read.ts";
 * const tag = "0123456789abcdef0123456789abcdef";
 * const ok = JSON.stringify({ op: "admit", role: "call", pid: 7, pgid: 7, startTime: 1, bootId: "b", tag });
 * const bad = '{"op":"admit","role":"call","pid":8,"pgid":8,"startTime":1,"bootId":"b"}';
 * const j = inspectJournal(`${ok}\n${bad}\nnot json\n`);
 * console.log(j.entries.length, j.rejected, j.malformed); // 1 1 1
 * ```
 */
export function inspectJournal(text: string): JournalContents {
  const fold = new JournalFold();
  const lines = new LineSplitter((l) => fold.line(l), () => fold.malformed++);
  lines.pushText(text.endsWith("\n") ? text : `${text}\n`);
  return fold.contents();
}

/**
 * Splits decoded text into lines of at most {@link MAX_LINE_BYTES} UTF-16 units (bytes, for
 * the ASCII toolhost writes), holding at most one line. An over-long line is reported
 * once (`onLong`) and skipped up to its newline; an unterminated last line is dropped (a
 * write torn by a crash).
 */
class LineSplitter {
  readonly #onLine: (line: string) => boolean;
  readonly #onLong: () => void;
  readonly #decoder = new TextDecoder();
  #pending = "";
  #skipping = false;
  stopped = false;

  constructor(onLine: (line: string) => boolean, onLong: () => void) {
    this.#onLine = onLine;
    this.#onLong = onLong;
  }

  /** Take a chunk (not kept beyond this call); false once a line stopped the read. */
  push(chunk: Uint8Array): boolean {
    return this.pushText(this.#decoder.decode(chunk, { stream: true }));
  }

  /** Take decoded text; false once a line stopped the read. */
  pushText(text: string): boolean {
    let start = 0;
    while (!this.stopped && start < text.length) {
      const nl = text.indexOf("\n", start);
      const end = nl === -1 ? text.length : nl;
      this.#take(text, start, end);
      if (nl === -1) break;
      this.#endLine();
      start = nl + 1;
    }
    return !this.stopped;
  }

  #take(text: string, start: number, end: number): void {
    if (this.#skipping || end === start) return;
    if (this.#pending.length + (end - start) > MAX_LINE_BYTES) {
      this.#skipping = true;
      this.#pending = "";
      this.#onLong();
      return;
    }
    this.#pending += text.slice(start, end);
  }

  #endLine(): void {
    if (!this.#skipping && !this.#onLine(this.#pending)) this.stopped = true;
    this.#skipping = false;
    this.#pending = "";
  }
}

/**
 * Read a journal file without following symlinks (record_file.ts), streaming and bounded
 * (see the module documentation): an absent file holds nothing; a file that is not a
 * regular file, or is over {@link MAX_JOURNAL_BYTES}, is refused as a whole. Rejects on
 * other I/O errors.
 *
 * @example
 * ```ts
 * import { readJournalFile } from "./journal_read.ts";
 * (await readJournalFile("/nonexistent/journal.jsonl")).entries; // []
 * ```
 */
export async function readJournalFile(path: string): Promise<JournalContents> {
  const fold = new JournalFold();
  const lines = new LineSplitter((l) => fold.line(l), () => fold.malformed++);
  const r = await streamRecordFile(path, MAX_JOURNAL_BYTES, (c) => lines.push(c));
  const empty = { entries: [], rejected: 0, malformed: 0, overfull: false };
  if (r.kind === "absent") return { ...empty, refusedFile: false };
  if (r.kind === "refused") return { ...empty, refusedFile: true };
  return fold.contents();
}
