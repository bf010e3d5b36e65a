/**
 * Process identity on Linux: `/proc/<pid>/stat` parsing, process start times (field 22,
 * in clock ticks since boot) and the boot id. A process is identified by
 * `{pid, startTime, bootId}`: a pid alone can be reused, the triple cannot.
 *
 * @module
 */

import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { readProcLine } from "./proc_line.ts";
import { type ScanBudget, scanPids } from "./proc_budget.ts";
import { withReserve } from "./fd_reserve.ts";

/** The fields of `/proc/<pid>/stat` that toolhost uses. */
export interface ProcStat {
  /** Process id. */
  pid: number;
  /** State letter (`R`, `S`, `D`, `Z` zombie, `T`, ...). */
  state: string;
  /** Parent process id. */
  ppid: number;
  /** Process group id. */
  pgrp: number;
  /** Session id. */
  sid: number;
  /** Start time in clock ticks since boot (field 22). */
  startTime: number;
  /** CPU time so far in clock ticks: utime + stime + cutime + cstime (fields 14–17). */
  ticks: number;
  /** Threads (tasks) of the process (field 20); at least 1. */
  threads: number;
}

/**
 * What toolhost records about a process group it started, before admitting it. The
 * group leader is always a session leader (`setsid`), so `pgid === pid` and every member
 * of the group has session id `pgid`.
 */
export interface ProcessRecord {
  /** Leader process id. */
  pid: number;
  /** Process group id (equal to `pid`). */
  pgid: number;
  /** Leader start time in clock ticks since boot, or null if it could not be read. */
  startTime: number | null;
  /** `/proc/sys/kernel/random/boot_id` when recorded, or null where unavailable. */
  bootId: string | null;
  /**
   * The group's secret: the random tag toolhost put in its leader's environment
   * (`_TOOLHOST_GROUP_TAG`, escape_reaper.ts), when toolhost started it. Only the same
   * user (or root) can read it back from `/proc/<pid>/environ`, so a record read back from
   * disk names a group toolhost started only if that group still carries it.
   */
  tag?: string;
}

/**
 * What a group tag looks like: 32 lowercase hex digits (128 random bits).
 *
 * @example
 * ```ts
 * import { GROUP_TAG_PATTERN } from "./proc_identity.ts";
 * GROUP_TAG_PATTERN.test("0123456789abcdef0123456789abcdef"); // true
 * ```
 */
export const GROUP_TAG_PATTERN: RegExp = /^[0-9a-f]{32}$/;

/**
 * Highest process id Linux can ever hand out (`PID_MAX_LIMIT`, 2^22). A recorded pid above
 * it cannot be ours.
 */
export const PID_MAX = 4_194_304;

const BOOT_ID = /^[0-9a-f-]{1,64}$/i;

/**
 * Parse a group record read back from disk (a journal line) — strictly, because the file
 * may be forged: a cloned repository can ship a state directory, and any tool may write
 * in it. Only a record toolhost itself writes on Linux passes: `pid` an integer in
 * 2..{@linkcode PID_MAX}, `pgid === pid`, a start time (a nonnegative integer), a boot id
 * and a group tag ({@linkcode GROUP_TAG_PATTERN}). Anything else — a null, missing or
 * fractional field, pid 0, 1 or negative, a group other than the pid, a missing, short or
 * malformed tag — is null, and a caller must then never signal what it names.
 *
 * @example
 * ```ts
 * import { parseStoredRecord } from "./proc_identity.ts";
 * const tag = "0123456789abcdef0123456789abcdef";
 * parseStoredRecord({ pid: 42, pgid: 42, startTime: 7, bootId: "b0", tag })?.pid; // 42
 * parseStoredRecord({ pid: 42, pgid: 42, startTime: 7, bootId: "b0" }); // null
 * ```
 */
export function parseStoredRecord(value: unknown): ProcessRecord | null {
  if (typeof value !== "object" || value === null) return null;
  const o = value as Record<string, unknown>;
  const { pid, pgid, startTime, bootId, tag } = o;
  if (typeof tag !== "string" || !GROUP_TAG_PATTERN.test(tag)) return null;
  if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid < 2 || pid > PID_MAX) {
    return null;
  }
  if (pgid !== pid) return null;
  if (typeof startTime !== "number" || !Number.isSafeInteger(startTime) || startTime < 0) {
    return null;
  }
  if (typeof bootId !== "string" || !BOOT_ID.test(bootId)) return null;
  return { pid, pgid: pid, startTime, bootId, tag };
}

/**
 * Parse the text of a `/proc/<pid>/stat` file. The command name (field 2) may contain
 * spaces and parentheses, so fields are counted from the last `)`.
 *
 * @example
 * ```ts
 * import { parseProcStat } from "./proc_identity.ts";
 * const s = parseProcStat("42 (a) b) S 1 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 777 0 0");
 * console.log(s?.startTime); // 777
 * ```
 */
export function parseProcStat(text: string): ProcStat | null {
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  const pid = Number.parseInt(text, 10);
  const f = text.slice(close + 2).split(" ");
  // f[0] is field 3 (state); field k is f[k - 3].
  if (f.length < 20 || !Number.isInteger(pid)) return null;
  const stat = {
    pid,
    state: f[0],
    ppid: Number(f[1]),
    pgrp: Number(f[2]),
    sid: Number(f[3]),
    startTime: Number(f[19]),
    ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]),
    threads: Math.max(1, Number(f[17]) || 1),
  };
  return Number.isFinite(stat.startTime) ? stat : null;
}

/**
 * Read `/proc/<pid>/stat`, or null when the process does not exist (or is unreadable).
 *
 * @example
 * ```ts
 * import { readProcStat } from "./proc_identity.ts";
 * import process from "node:process";
 * console.log(readProcStat(process.pid)?.state); // "R"
 * ```
 */
export function readProcStat(pid: number): ProcStat | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const path = `/proc/${pid}/stat`;
  // existsSync first: a thrown ENOENT costs far more than the check on the hot path.
  if (!existsSync(path)) return null;
  try {
    return parseProcStat(readProcLine(path));
  } catch {
    return null;
  }
}

let cachedBootId: string | null | undefined;

/**
 * The kernel boot id, cached; null where `/proc` does not provide it (and, not cached, when it
 * could not be read just now: a descriptor flood). Start times are
 * relative to boot, so a record from another boot never matches a live process.
 *
 * @example
 * ```ts
 * import { currentBootId } from "./proc_identity.ts";
 * console.log(currentBootId()?.length); // 36
 * ```
 */
export function currentBootId(): string | null {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync("/proc/sys/kernel/random/boot_id", "latin1").trim();
    } catch (e) {
      // Only a definite "not provided here" is kept: a passing failure (EMFILE under a
      // descriptor flood) cached as null would make every owner of this boot look dead
      // to this process, and this process's own records look dead to every other.
      if (!notProvided(e)) return null;
      cachedBootId = null;
    }
  }
  return cachedBootId;
}

/** The error says the file is not there at all (not a passing failure to read it). */
function notProvided(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

let cachedPidNs: string | null | undefined;

/**
 * This process's pid namespace (`/proc/self/ns/pid`'s link text, e.g. `pid:[4026531836]`),
 * cached; null where `/proc` does not provide it. A pid recorded by a process of another
 * namespace (another container sharing the workspace) names nothing here, or someone
 * else: it can be neither confirmed alive nor dead from this one.
 *
 * @example
 * ```ts
 * import { currentPidNs } from "./proc_identity.ts";
 * console.log(currentPidNs()?.startsWith("pid:[")); // true on Linux
 * ```
 */
export function currentPidNs(): string | null {
  if (cachedPidNs === undefined) {
    try {
      cachedPidNs = readlinkSync("/proc/self/ns/pid");
    } catch (e) {
      if (!notProvided(e)) return null; // a passing failure is not cached
      cachedPidNs = null;
    }
  }
  return cachedPidNs;
}

/**
 * Record the identity of a freshly spawned group leader. Call it synchronously right
 * after spawning: until the event loop runs, the child cannot have been reaped, so its
 * `/proc` entry (at worst a zombie) is still the child's. A read that fails (a descriptor
 * flood) is tried once more with the descriptor held in reserve for it (fd_reserve.ts).
 *
 * @example
 * ```ts
 * import { recordProcess } from "./proc_identity.ts";
 * import process from "node:process";
 * const rec = recordProcess(process.pid);
 * console.log(rec.pgid === rec.pid); // true
 * ```
 */
export function recordProcess(pid: number): ProcessRecord {
  // A descriptor flood must not leave the record without its identity (fd_reserve.ts).
  const identity = withReserve(
    () => ({ startTime: readProcStat(pid)?.startTime ?? null, bootId: currentBootId() }),
    (r) => r.startTime === null || r.bootId === null,
  );
  return { pid, pgid: pid, ...identity };
}

/**
 * True when `record`'s leader is still the very process that was recorded (same boot,
 * same pid, same start time). Zombies count: they still hold their pid.
 *
 * @example
 * ```ts
 * import { isSameProcess, recordProcess } from "./proc_identity.ts";
 * import process from "node:process";
 * console.log(isSameProcess(recordProcess(process.pid))); // true
 * ```
 */
export function isSameProcess(record: ProcessRecord): boolean {
  if (record.bootId !== currentBootId()) return false;
  const stat = readProcStat(record.pid);
  return stat !== null && record.startTime !== null && stat.startTime === record.startTime;
}

/** What a scan of one process group found. */
export interface GroupScan {
  /** The members found (all of them when `complete`). */
  members: ProcStat[];
  /**
   * False when the scan ran out of its entry or time budget (proc_budget.ts): members may
   * be missing, so the group must be treated as unconfirmed — never as empty.
   */
  complete: boolean;
}

/**
 * Every process whose process group is `pgid`, zombies included, by scanning
 * `/proc/<pid>/stat` within `budget` (proc_budget.ts defaults). Processes that vanish
 * during the scan are skipped.
 *
 * @example
 * ```ts
 * import { scanGroup } from "./proc_identity.ts";
 * const scan = scanGroup(999999999);
 * console.log(scan.members.length, scan.complete); // 0 true
 * ```
 */
export function scanGroup(pgid: number, budget: ScanBudget = {}): GroupScan {
  const members: ProcStat[] = [];
  const { complete } = scanPids((pid) => {
    const stat = readProcStat(pid);
    if (stat !== null && stat.pgrp === pgid) members.push(stat);
  }, budget);
  return { members, complete };
}

/**
 * The members of `pgid` that are still running (not zombies), within `budget`.
 *
 * @example
 * ```ts
 * import { liveGroupMembers } from "./proc_identity.ts";
 * console.log(liveGroupMembers(999999999).members); // []
 * ```
 */
export function liveGroupMembers(pgid: number, budget: ScanBudget = {}): GroupScan {
  const scan = scanGroup(pgid, budget);
  return { ...scan, members: scan.members.filter((p) => p.state !== "Z" && p.state !== "X") };
}
