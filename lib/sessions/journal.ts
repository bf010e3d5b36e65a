/**
 * The session journal: an append-only JSON-lines file recording every process group a
 * session admits (start, stop, bound calls) — written and fsynced before the group gets
 * its stdin — and every group whose termination was confirmed ("retired"). After a crash,
 * the unretired entries are exactly the groups a sweep must end. Per-call directories
 * (lib/process call_dirs.ts) keep their group in the same line format.
 *
 * Reading back is fail-closed, because a state directory can be forged: an admission
 * without a complete identity (pid ≥ 2 and equal to pgid, start time, boot id, group tag)
 * is counted as rejected and never returned, and the file is never followed through a
 * symlink. The group tag is the secret in the group's environment that a sweep checks
 * before it signals anything (lib/process kill_group.ts `verifyStoredGroup`).
 *
 * ```
 * {"op":"admit","role":"start","pid":41,"pgid":41,"startTime":9001,"bootId":"…","tag":"…"}
 * {"op":"retire","pid":41,"startTime":9001}
 * ```
 *
 * @module
 */

import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { parseStoredRecord, type ProcessRecord } from "../process/proc_identity.ts";
import { readRecordFile } from "./record_file.ts";

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
}

/** Largest journal a sweep reads (64 MiB: hundreds of thousands of bound calls). */
export const MAX_JOURNAL_BYTES = 64 * 1024 * 1024;

const ROLES: readonly string[] = ["start", "stop", "call"];

function key(pid: unknown, startTime: unknown): string {
  return JSON.stringify([pid, startTime ?? null]);
}

/**
 * Parse journal text into its unretired entries and count the refused admissions.
 * Records are parsed strictly (`parseStoredRecord`): the file may be forged. Lines that
 * are not JSON objects (such as a line torn by a crash mid-write) are skipped.
 *
 * @example
 * ```ts
 * import { inspectJournal } from "./journal.ts";
 * const tag = "0123456789abcdef0123456789abcdef";
 * const ok = JSON.stringify({ op: "admit", role: "call", pid: 7, pgid: 7, startTime: 1, bootId: "b", tag });
 * const bad = '{"op":"admit","role":"call","pid":8,"pgid":8,"startTime":1,"bootId":"b"}';
 * const j = inspectJournal(`${ok}\n${bad}\n`);
 * console.log(j.entries.length, j.rejected); // 1 1
 * ```
 */
export function inspectJournal(text: string): JournalContents {
  const live = new Map<string, JournalEntry>();
  const rejected = new Set<string>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) continue;
    const o = v as Record<string, unknown>;
    if (o.op === "retire") {
      live.delete(key(o.pid, o.startTime));
      rejected.delete(key(o.pid, o.startTime));
    } else if (o.op === "admit") {
      const record = parseStoredRecord(o);
      if (record !== null && typeof o.role === "string" && ROLES.includes(o.role)) {
        live.set(key(record.pid, record.startTime), { role: o.role as JournalRole, record });
      } else {
        rejected.add(key(o.pid, o.startTime));
      }
    }
  }
  return { entries: [...live.values()], rejected: rejected.size, refusedFile: false };
}

/**
 * Parse journal text into its unretired, complete entries (see {@linkcode inspectJournal}).
 *
 * @example
 * ```ts
 * import { parseJournal } from "./journal.ts";
 * const tag = "0123456789abcdef0123456789abcdef";
 * const text = `${JSON.stringify({ op: "admit", role: "call", pid: 7, pgid: 7, startTime: 1, bootId: "b", tag })}\n`;
 * parseJournal(text).length; // 1
 * ```
 */
export function parseJournal(text: string): JournalEntry[] {
  return inspectJournal(text).entries;
}

/**
 * Read a journal file without following symlinks (see record_file.ts): an absent file
 * holds nothing; a file that is not a regular file, or is over {@linkcode MAX_JOURNAL_BYTES},
 * is refused as a whole. Rejects on other I/O errors.
 *
 * @example
 * ```ts
 * import { readJournalFile } from "./journal.ts";
 * (await readJournalFile("/nonexistent/journal.jsonl")).entries; // []
 * ```
 */
export async function readJournalFile(path: string): Promise<JournalContents> {
  const r = await readRecordFile(path, MAX_JOURNAL_BYTES);
  if (r.kind === "absent") return { entries: [], rejected: 0, refusedFile: false };
  if (r.kind === "refused") return { entries: [], rejected: 0, refusedFile: true };
  return inspectJournal(r.text);
}

/**
 * Read a journal file's unretired, complete entries; an absent (or refused) file has none.
 *
 * @example
 * ```ts
 * import { readJournal } from "./journal.ts";
 * await readJournal("/nonexistent/journal.jsonl"); // []
 * ```
 */
export async function readJournal(path: string): Promise<JournalEntry[]> {
  return (await readJournalFile(path)).entries;
}

/**
 * An open journal. Writes are synchronous: `admit` returns only after the line is on
 * disk (fsync), so it can run inside `spawnGroup`'s `onSpawn` without yielding to the
 * event loop (an `onSpawn` that awaits I/O lets a fast child exit before its output is
 * being read, and Node's child_process then discards that output). The unretired entries
 * are also kept in memory for the exit safety net.
 *
 * @example
 * ```ts
 * import { Journal } from "./journal.ts";
 * const j = Journal.open("/tmp/journal.jsonl");
 * j.admit("call", { pid: 7, pgid: 7, startTime: 1, bootId: null });
 * j.close();
 * ```
 */
export class Journal {
  #fd: number | null;
  #live = new Map<string, JournalEntry>();

  private constructor(fd: number) {
    this.#fd = fd;
  }

  /** Open (create or append to) a journal file. */
  static open(path: string): Journal {
    return new Journal(openSync(path, "a", 0o600));
  }

  #write(line: string, sync: boolean): void {
    const fd = this.#fd;
    if (fd === null) throw new Error("the session journal is closed");
    writeSync(fd, `${line}\n`);
    if (sync) fsyncSync(fd);
  }

  /** Record a group before it is admitted; returns once synced to disk. Throws on failure. */
  admit(role: JournalRole, record: ProcessRecord): void {
    this.#live.set(key(record.pid, record.startTime), { role, record });
    this.#write(JSON.stringify({ op: "admit", role, ...record }), true);
  }

  /**
   * Record that a group's termination was confirmed (no fsync: identity checks cover a
   * lost line). Never throws.
   */
  retire(record: ProcessRecord): void {
    this.#live.delete(key(record.pid, record.startTime));
    try {
      this.#write(
        JSON.stringify({ op: "retire", pid: record.pid, startTime: record.startTime }),
        false,
      );
    } catch {
      // The in-memory state is what cleanup uses; a later sweep re-checks identities.
    }
  }

  /** The admitted groups not retired yet. */
  live(): JournalEntry[] {
    return [...this.#live.values()];
  }

  /** Close the file; idempotent. */
  close(): void {
    const fd = this.#fd;
    this.#fd = null;
    if (fd !== null) closeSync(fd);
  }
}
