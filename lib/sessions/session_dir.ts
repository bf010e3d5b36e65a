/**
 * A session's private directory and its ownership records, under
 * `<stateDir>/sessions/<16 hex>/`:
 *
 * ```
 * owner.json      the owning toolhost process: pid, start time, boot id
 * lease           present while the session lives or its cleanup is in progress
 * journal.jsonl   every start, stop and bound-call process group (see journal.ts)
 * d/              the session directory handed to the harness (ARTIFACTIZE_SESSION_DIR)
 * start/output    the start invocation's private output directory
 * start/tmp       the start invocation's private TMPDIR
 * calls/<random>  per-invocation output/tmp of bound calls and stop
 * ```
 *
 * A root is built as `<name>.tmp` (owner, lease and empty journal written and synced)
 * and renamed into place, so a final-named root always has its owner and lease. Removal
 * deletes the journal and records last, after everything else.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, open, realpath, rename, rm, unlink } from "node:fs/promises";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { CleanupFailed } from "../errors/errors.ts";
import { makeDirs } from "../paths/make_dirs.ts";
import { removeTree } from "../process/call_dirs.ts";
import { currentBootId, currentPidNs, readProcStat } from "../process/proc_identity.ts";
import { ownIdentity } from "../process/own_identity.ts";
import { readRecordFile } from "./record_file.ts";
import { moveToTrash } from "./trash.ts";

/** The process that owns a session directory. */
export interface OwnerRecord {
  /** Process id. */
  pid: number;
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22), or null. */
  startTime: number | null;
  /** Kernel boot id, or null where unavailable. */
  bootId: string | null;
  /**
   * The owner's pid namespace (`currentPidNs`), or null where unavailable; absent in
   * records written before it was recorded (they are judged as of this namespace).
   */
  pidNs?: string | null;
}

/** A created session root. */
export interface SessionRoot {
  /** `<stateDir>/sessions/<name>` (canonical). */
  root: string;
  /** The private session directory handed to the harness. */
  dir: string;
  /** The journal file. */
  journalPath: string;
  /** The start invocation's output directory. */
  startOutput: string;
  /** The start invocation's TMPDIR. */
  startTmp: string;
}

/** Names of the records inside a root. */
export const RECORD_FILES = {
  owner: "owner.json",
  lease: "lease",
  journal: "journal.jsonl",
} as const;

/** Root names: 16 lowercase hex digits, optionally `.tmp` while being built. */
export const ROOT_NAME = /^[0-9a-f]{16}(\.tmp)?$/;

const PRIVATE = 0o700;

/**
 * The folder holding every session root of a state directory.
 *
 * @example
 * ```ts
 * import { sessionsRoot } from "./session_dir.ts";
 * sessionsRoot("/state"); // "/state/sessions"
 * ```
 */
export function sessionsRoot(stateDir: string): string {
  return join(resolve(stateDir), "sessions");
}

/**
 * This process as an owner (pid and start time from `/proc/self/stat`), complete: throws
 * `PreparationFailed` when part of it cannot be read right now (lib/process own_identity.ts),
 * as every other toolhost sharing the state directory judges the session by it.
 *
 * @example
 * ```ts
 * import { currentOwner } from "./session_dir.ts";
 * import process from "node:process";
 * console.log(currentOwner().pid === process.pid); // true
 * ```
 */
export function currentOwner(): OwnerRecord {
  return { ...ownIdentity() };
}

/**
 * Does the owner live in another pid namespace than this process (another container on
 * the same workspace and kernel)? Its pid names nothing here, or another process, so
 * whether it runs cannot be told from here: its folders are left to the toolhosts of its
 * own namespace. A record without a namespace (written before it was recorded) and a
 * process without one are judged as of this namespace.
 *
 * @example
 * ```ts
 * import { currentOwner, ownerElsewhere } from "./session_dir.ts";
 * ownerElsewhere(currentOwner()); // false
 * ```
 */
export function ownerElsewhere(owner: OwnerRecord): boolean {
  if (owner.pidNs == null) return false;
  const here = currentPidNs();
  // Not readable right now (EMFILE) where the kernel has it: this process cannot tell.
  if (here === null) return existsSync("/proc/self/ns/pid");
  return owner.pidNs !== here;
}

/**
 * Is the recorded owner still running? Same boot, same pid, same start time, and not a
 * zombie (an owner that exited but was never waited for counts as exited). An owner of
 * another pid namespace ({@link ownerElsewhere}) cannot be told dead from here: it
 * counts as running.
 *
 * @example
 * ```ts
 * import { currentOwner, ownerIsAlive } from "./session_dir.ts";
 * ownerIsAlive(currentOwner()); // true
 * ```
 */
export function ownerIsAlive(owner: OwnerRecord): boolean {
  if (!existsSync("/proc/self/stat")) return pidMayRun(owner.pid);
  if (ownerElsewhere(owner)) return true;
  const here = currentBootId();
  // This process cannot read its boot id right now (EMFILE): it cannot tell, so it keeps.
  if (here === null && owner.bootId !== null) return true;
  if (owner.bootId !== here) return false;
  if (owner.startTime === null) return false;
  const stat = readProcStat(owner.pid);
  // No stat while the pid's folder is there: unreadable right now (EMFILE), not gone.
  if (stat === null) return existsSync(`/proc/${owner.pid}`);
  if (stat.startTime !== owner.startTime) return false;
  return stat.state !== "Z" && stat.state !== "X";
}

/** Without `/proc` an owner cannot be identified: any process with its pid may be it, so
 * it counts as alive (its directories are left alone rather than removed under it). */
function pidMayRun(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}

/**
 * Parse an owner record; null when malformed.
 *
 * @example
 * ```ts
 * import { parseOwner } from "./session_dir.ts";
 * parseOwner('{"pid":1,"startTime":5,"bootId":null}')?.pid; // 1
 * ```
 */
export function parseOwner(text: string): OwnerRecord | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null) return null;
  const o = v as Record<string, unknown>;
  const intOrNull = (x: unknown) => x === null || (Number.isSafeInteger(x) && (x as number) >= 0);
  if (!Number.isSafeInteger(o.pid) || (o.pid as number) <= 0 || !intOrNull(o.startTime)) {
    return null;
  }
  if (o.bootId !== null && typeof o.bootId !== "string") return null;
  const pidNs = o.pidNs;
  if (pidNs !== undefined && pidNs !== null && typeof pidNs !== "string") return null;
  return {
    pid: o.pid as number,
    startTime: o.startTime as number | null,
    bootId: o.bootId as string | null,
    ...(pidNs === undefined ? {} : { pidNs }),
  };
}

/** Largest owner record read back (a real one is under 100 bytes). */
const MAX_OWNER_BYTES = 4096;

/**
 * Read a root's owner record; null when missing, malformed, or not a regular file (it is
 * never read through a symlink). Rejects when it is there but cannot be read right now
 * (EMFILE under a descriptor flood, EACCES, EIO): a sweep must then leave the folder
 * alone — taken for ownerless, a live owner's folder older than a minute would be swept.
 *
 * @example
 * ```ts
 * import { readOwner } from "./session_dir.ts";
 * await readOwner("/nonexistent"); // null
 * ```
 */
export async function readOwner(root: string): Promise<OwnerRecord | null> {
  const r = await readRecordFile(join(root, RECORD_FILES.owner), MAX_OWNER_BYTES);
  return r.kind === "text" ? parseOwner(r.text) : null;
}

/**
 * Does the root hold an active lease?
 *
 * @example
 * ```ts
 * import { hasLease } from "./session_dir.ts";
 * await hasLease("/nonexistent"); // false
 * ```
 */
export async function hasLease(root: string): Promise<boolean> {
  try {
    return (await lstat(join(root, RECORD_FILES.lease))).isFile();
  } catch {
    return false;
  }
}

async function writeSynced(path: string, text: string): Promise<void> {
  const fh = await open(path, "wx", 0o600);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function syncFile(path: string): Promise<void> {
  const fh = await open(path, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function privateDir(path: string): Promise<void> {
  await mkdir(path, { mode: PRIVATE });
  await chmod(path, PRIVATE);
}

async function syncDir(path: string): Promise<void> {
  try {
    const fh = await open(path, "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Directory fsync is best effort (not every platform allows it).
  }
}

/**
 * Create a session root owned by `owner` (default: this process), with an active lease,
 * an empty journal and the private directories. Creates `<stateDir>/sessions` if needed.
 *
 * @example
 * ```ts
 * import { createSessionRoot, removeSessionRoot } from "./session_dir.ts";
 * const r = await createSessionRoot("/tmp/toolhost-state");
 * await removeSessionRoot(r.root);
 * ```
 */
export async function createSessionRoot(
  stateDir: string,
  owner: OwnerRecord = currentOwner(),
): Promise<SessionRoot> {
  const parent = sessionsRoot(stateDir);
  await makeDirs(parent, PRIVATE);
  if (!(await lstat(parent)).isDirectory()) {
    throw new CleanupFailed(
      "The state directory's `sessions` folder is not a directory; remove it.",
    );
  }
  const canonical = await realpath(parent);
  const name = randomBytes(8).toString("hex");
  const building = join(canonical, `${name}.tmp`);
  // The folder and its owner record in one synchronous step: a toolhost killed between
  // the two would leave an ownerless folder that every sweep must leave alone for a while.
  mkdirSync(building, { mode: PRIVATE });
  try {
    const ownerPath = join(building, RECORD_FILES.owner);
    writeFileSync(ownerPath, `${JSON.stringify(owner)}\n`, { flag: "wx", mode: 0o600 });
    await chmod(building, PRIVATE);
    await syncFile(ownerPath);
    await writeSynced(join(building, RECORD_FILES.lease), "active\n");
    await writeSynced(join(building, RECORD_FILES.journal), "");
    for (const d of ["d", "start", "start/output", "start/tmp"]) {
      await privateDir(join(building, d));
    }
    await syncDir(building);
    const root = join(canonical, name);
    await rename(building, root);
    await syncDir(canonical);
    return {
      root,
      dir: join(root, "d"),
      journalPath: join(root, RECORD_FILES.journal),
      startOutput: join(root, "start", "output"),
      startTmp: join(root, "start", "tmp"),
    };
  } catch (e) {
    await rm(building, { recursive: true, force: true }).catch(() => {});
    throw e;
  }
}

/**
 * Release a root's lease (after a failed cleanup): a later sweep may then clean it even
 * while its owner lives. Idempotent.
 *
 * @example
 * ```ts
 * import { releaseLease } from "./session_dir.ts";
 * await releaseLease("/nonexistent");
 * ```
 */
export async function releaseLease(root: string): Promise<void> {
  try {
    await unlink(join(root, RECORD_FILES.lease));
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOENT") throw e;
  }
}

/**
 * Remove a root: renamed to `<name>.trash` first (trash.ts: a toolhost killed while
 * removing it leaves a folder any sweep removes at once), then its contents, then the
 * journal, the owner record and the lease (in that order: a sweep reads the lease before
 * the owner record, so a root that could not be renamed is never seen leased-off with its
 * owner record still there — see sweep.ts), then the folder. Only call this once every
 * owned process is confirmed gone. Idempotent, and a root that another toolhost's sweep
 * removes at the same time is removed all the same; rejects with `CleanupFailed` when
 * something cannot be removed.
 *
 * @example
 * ```ts
 * import { removeSessionRoot } from "./session_dir.ts";
 * await removeSessionRoot("/tmp/does-not-exist");
 * ```
 */
export async function removeSessionRoot(root: string): Promise<void> {
  const target = await moveToTrash(root);
  if (target === null) return;
  try {
    for (const sub of ["d", "start", "calls"]) await removeTree(join(target, sub));
    for (const f of [RECORD_FILES.journal, RECORD_FILES.owner, RECORD_FILES.lease]) {
      await rm(join(target, f), { force: true });
    }
    await removeTree(target);
  } catch {
    if (await isGone(target)) return;
    throw new CleanupFailed(
      "A tool session's directory could not be removed; check the state directory's permissions and run `toolhost sweep`.",
    );
  }
}

async function isGone(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return false;
  } catch (e) {
    return (e as { code?: string }).code === "ENOENT";
  }
}
