/**
 * The session journal: an append-only JSON-lines file recording every process group a
 * session admits (start, stop, bound calls) — written and fsynced before the group gets
 * its stdin — and every group whose termination was confirmed ("retired"). After a crash,
 * the unretired entries are exactly the groups a sweep must end.
 *
 * ```
 * {"op":"admit","role":"start","pid":41,"pgid":41,"startTime":9001,"bootId":"…"}
 * {"op":"retire","pid":41,"startTime":9001}
 * ```
 *
 * @module
 */

import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { ProcessRecord } from "../process/proc_identity.ts";

/** Which invocation a group belongs to. */
export type JournalRole = "start" | "stop" | "call";

/** One admitted, not yet retired group. */
export interface JournalEntry {
  /** The invocation kind. */
  role: JournalRole;
  /** The group's identity. */
  record: ProcessRecord;
}

function key(pid: number, startTime: number | null): string {
  return `${pid}:${startTime}`;
}

function isRecord(o: Record<string, unknown>): boolean {
  const intOrNull = (x: unknown) => x === null || Number.isSafeInteger(x);
  return Number.isSafeInteger(o.pid) && (o.pid as number) > 0 && Number.isSafeInteger(o.pgid) &&
    intOrNull(o.startTime) && (o.bootId === null || typeof o.bootId === "string");
}

/**
 * Parse journal text into its unretired entries. Malformed lines (such as a line torn by
 * a crash mid-write) are skipped.
 *
 * @example
 * ```ts
 * import { parseJournal } from "./journal.ts";
 * const text = '{"op":"admit","role":"call","pid":7,"pgid":7,"startTime":1,"bootId":null}\n';
 * parseJournal(text).length; // 1
 * ```
 */
export function parseJournal(text: string): JournalEntry[] {
  const live = new Map<string, JournalEntry>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof o !== "object" || o === null) continue;
    if (o.op === "retire" && Number.isSafeInteger(o.pid)) {
      live.delete(key(o.pid as number, (o.startTime ?? null) as number | null));
    } else if (
      o.op === "admit" && ["start", "stop", "call"].includes(o.role as string) && isRecord(o)
    ) {
      const record: ProcessRecord = {
        pid: o.pid as number,
        pgid: o.pgid as number,
        startTime: o.startTime as number | null,
        bootId: o.bootId as string | null,
      };
      live.set(key(record.pid, record.startTime), { role: o.role as JournalRole, record });
    }
  }
  return [...live.values()];
}

/**
 * Read a journal file's unretired entries; an absent file has none.
 *
 * @example
 * ```ts
 * import { readJournal } from "./journal.ts";
 * await readJournal("/nonexistent/journal.jsonl"); // []
 * ```
 */
export async function readJournal(path: string): Promise<JournalEntry[]> {
  try {
    return parseJournal(await readFile(path, "utf8"));
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return [];
    throw e;
  }
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
