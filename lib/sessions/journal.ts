/**
 * The session journal: an append-only JSON-lines file recording every process group a
 * session admits (start, stop, bound calls) — written and fsynced before the group gets
 * its stdin — and every group whose termination was confirmed ("retired"). After a crash,
 * the unretired entries are exactly the groups a sweep must end. Per-call directories
 * (lib/process call_dirs.ts) keep their group in the same line format.
 *
 * Reading back (journal_read.ts) is fail-closed and bounded, because a state directory can
 * be forged: an admission without a complete identity (pid ≥ 2 and equal to pgid, start
 * time, boot id, group tag) is counted as rejected and never returned, malformed lines
 * are skipped and counted, the file is never followed through a symlink, and bytes,
 * line length and tracked admissions are bounded. The group tag is the secret in the group's environment that a sweep checks
 * before it signals anything (lib/process kill_group.ts `verifyStoredGroup`).
 *
 * ```
 * {"op":"admit","role":"start","pid":41,"pgid":41,"startTime":9001,"bootId":"…","tag":"…"}
 * {"op":"retire","pid":41,"startTime":9001}
 * ```
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import type { ProcessRecord } from "../process/proc_identity.ts";
import {
  inspectJournal,
  type JournalEntry,
  journalKey as key,
  type JournalRole,
  readJournalFile,
} from "./journal_read.ts";

export {
  inspectJournal,
  type JournalContents,
  type JournalEntry,
  type JournalRole,
  MAX_JOURNAL_BYTES,
  MAX_JOURNAL_GROUPS,
  MAX_LINE_BYTES,
  readJournalFile,
} from "./journal_read.ts";

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
  /** The last write failed, possibly inside its line. */
  #cut = false;

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
    // After a failed write (ENOSPC midway may leave part of its line, and a failing write
    // need not say how much), the next line starts on a line of its own: appended to a cut
    // one, it would be read back as one malformed line and lost.
    const bytes = Buffer.from(`${this.#cut ? "\n" : ""}${line}\n`, "utf8");
    this.#cut = true;
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
    this.#cut = false;
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
