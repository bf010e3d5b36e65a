/**
 * Private per-call directories: `<stateDir>/calls/<random>/{output,tmp}`, mode 0700,
 * created exclusively, canonical (no symlink in the returned paths), and removed robustly
 * — never following symlinks, and fixing permissions a tool may have removed (read-only
 * directories such as Go's module cache) before retrying.
 *
 * Each call directory also journals its call so `toolhost sweep` can finish the job when
 * toolhost is killed mid-call (`kill -9`, SIGHUP, a crash):
 *
 * ```
 * owner.json      the owning toolhost process: pid, start time, boot id, pid namespace
 * journal.jsonl   the call's process group, written by `admit` before the group is
 *                 admitted, in the session journal's line format
 * output/ tmp/    the tool's private directories
 * ```
 *
 * The records cost one small write each and are not fsynced: they only matter while the
 * same boot lasts, and a killed process's writes survive in the page cache; after a
 * machine crash the boot id changes and no recorded process can run. When the call's
 * group cannot be confirmed gone, `remove()` keeps the directory with its records.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { Buffer } from "node:buffer";
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { CleanupFailed } from "../errors/errors.ts";
import { makeDirsSync } from "../paths/make_dirs.ts";
import { removeTreeNoFollow } from "../paths/remove_tree.ts";
import { holdDir, releaseDirs } from "./held_dirs.ts";
import { inspectGroup, isGroupGone } from "./kill_group.ts";
import type { ProcessRecord } from "./proc_identity.ts";
import { ownIdentity } from "./own_identity.ts";

/** The private directories of one call. */
export interface CallDirs {
  /** `<stateDir>/calls/<random>` (canonical). */
  root: string;
  /** The tool's output directory (json `context.outputDir`). */
  outputDir: string;
  /** The tool's TMPDIR/TMP/TEMP. */
  tmpDir: string;
  /**
   * Journal the call's process group before it is admitted (pass as `callDirs` to
   * `runBounded`). Synchronous, so it can run inside `spawnGroup`'s `onSpawn`; throws
   * when the record cannot be written (the call must then be refused).
   */
  admit(record: ProcessRecord): void;
  /**
   * The admitted group was confirmed ended (`runBounded`'s `cleanupConfirmed`, a
   * terminate report's `confirmed`): `remove()` need not look for it again. A sandbox's
   * group can hold its init as a zombie long after it ended (slow system reapers), and
   * that look is then a whole `/proc` scan.
   */
  retire(record: ProcessRecord): void;
  /**
   * Remove everything; idempotent. Rejects with `CleanupFailed` if that is impossible,
   * or when an admitted group still runs (the directory and its records are then kept
   * for a sweep).
   */
  remove(): Promise<void>;
}

/** Names of a call directory's records. */
export const CALL_RECORD_FILES = { owner: "owner.json", journal: "journal.jsonl" } as const;

/** Call directory names: 24 lowercase hex digits. */
export const CALL_DIR_NAME = /^[0-9a-f]{24}$/;

const PRIVATE = 0o700;

let ownerLine: string | undefined;

/** This process as a call directory's owner (the session owner record format); throws
 * `PreparationFailed` when its identity cannot be read whole right now. */
function ownerRecordLine(): string {
  if (ownerLine === undefined) {
    // Complete or thrown (own_identity.ts): a record missing a part would hand this live
    // process's folders to every other toolhost's sweep.
    ownerLine = `${JSON.stringify(ownIdentity())}\n`;
  }
  return ownerLine;
}

/**
 * Record this process as the owner of `dir` (`owner.json`, the call directory's record),
 * unless a record is there already: a registry's artifact store (`<state>/artifacts/<id>`)
 * is claimed so that `toolhost sweep` can remove it once its owner is gone (killed with
 * the registry still open). Never follows a link; a record that exists is left as it is.
 *
 * @example
 * ```ts
 * import { mkdtempSync, readFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { claimOwnedDir } from "./call_dirs.ts";
 * const dir = mkdtempSync(join(tmpdir(), "toolhost-claim-"));
 * claimOwnedDir(dir);
 * JSON.parse(readFileSync(join(dir, "owner.json"), "utf8")).pid; // this process's pid
 * ```
 */
export function claimOwnedDir(dir: string): void {
  const record = join(dir, CALL_RECORD_FILES.owner);
  // Claimed before every command-tool call: an existing record (of any kind, as the
  // exclusive create below would find it) is seen without the cost of a failed create.
  if (lstatSync(record, { throwIfNoEntry: false }) !== undefined) return;
  try {
    writeRecordSync(record, ownerRecordLine(), "wx");
  } catch (e) {
    if ((e as { code?: unknown }).code !== "EEXIST") throw e;
  }
}

/**
 * The folder holding every call's directories under a state dir.
 *
 * @example
 * ```ts
 * import { callsRoot } from "./call_dirs.ts";
 * callsRoot("/state"); // "/state/calls"
 * ```
 */
export function callsRoot(stateDir: string): string {
  return join(resolve(stateDir), "calls");
}

const canonicalRoots = new Map<string, string>();

/** The canonical `<stateDir>/calls`, created (0700) and checked once per state dir. */
function canonicalCallsRoot(stateDir: string, refresh: boolean): string {
  const calls = callsRoot(stateDir);
  const cached = refresh ? undefined : canonicalRoots.get(calls);
  if (cached !== undefined) return cached;
  makeDirsSync(calls, PRIVATE);
  if (!lstatSync(calls).isDirectory()) {
    throw new CleanupFailed("The state directory's `calls` folder is not a directory; remove it.");
  }
  const real = realpathSync(calls);
  canonicalRoots.set(calls, real);
  return real;
}

/** Create `<calls>/<random>` exclusively; retry once if a cached `calls` folder vanished. */
function makeRoot(stateDir: string): string {
  const name = randomBytes(12).toString("hex");
  try {
    const root = join(canonicalCallsRoot(stateDir, false), name);
    mkdirSync(root, { mode: PRIVATE });
    return root;
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOENT") throw e;
    const root = join(canonicalCallsRoot(stateDir, true), name);
    mkdirSync(root, { mode: PRIVATE });
    return root;
  }
}

/**
 * Write `text` to the record file `path` opened with `flag`, created with mode 0600 by
 * the `open` itself (`writeFileSync` with a mode creates the file with the default mode
 * under Deno and `chmod`s it after: one more system call, and a moment at 0644).
 */
function writeRecordSync(path: string, text: string, flag: "a" | "wx"): void {
  const bytes = Buffer.from(text, "utf8");
  const fd = openSync(path, flag, 0o600);
  try {
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
  } finally {
    closeSync(fd);
  }
}

/**
 * Create a call's private directories under `<stateDir>/calls/`, with this process
 * recorded as their owner. Modes are 0700 (the umask can only remove bits). The few
 * `mkdir`s and the owner write are synchronous: they are local and cheap, and avoid
 * thread-pool round trips on the per-call hot path.
 *
 * @example
 * ```ts
 * import { createCallDirs } from "./call_dirs.ts";
 * const dirs = await createCallDirs("/tmp/toolhost-state");
 * try {
 *   console.log(dirs.outputDir.endsWith("/output")); // true
 * } finally {
 *   await dirs.remove();
 * }
 * ```
 */
export function createCallDirs(stateDir: string): Promise<CallDirs> {
  try {
    const root = makeRoot(stateDir);
    const admitted: ProcessRecord[] = [];
    const dirs: CallDirs = {
      root,
      outputDir: join(root, "output"),
      tmpDir: join(root, "tmp"),
      admit: (record) => {
        const line = JSON.stringify({ op: "admit", role: "call", ...record });
        writeRecordSync(join(root, CALL_RECORD_FILES.journal), `${line}\n`, "a");
        admitted.push(record);
      },
      retire: (record) => {
        const i = admitted.findIndex((r) =>
          r.pid === record.pid && r.startTime === record.startTime
        );
        if (i >= 0) admitted.splice(i, 1);
      },
      remove: memo(() => removeCallRoot(dirs, admitted)),
    };
    try {
      writeRecordSync(join(root, CALL_RECORD_FILES.owner), ownerRecordLine(), "wx");
      mkdirSync(dirs.outputDir, { mode: PRIVATE });
      mkdirSync(dirs.tmpDir, { mode: PRIVATE });
    } catch (e) {
      return dirs.remove().then(() => Promise.reject(e));
    }
    return Promise.resolve(dirs);
  } catch (e) {
    return Promise.reject(e);
  }
}

/** Remove a call's directory — unless an admitted group still runs: then only its
 * private directories go, and the records stay for `toolhost sweep`. */
async function removeCallRoot(dirs: CallDirs, admitted: ProcessRecord[]): Promise<void> {
  // A group not seen whole within the scan budget counts as running: fail closed.
  const running = admitted.some((r) => !isGroupGone(inspectGroup(r)));
  if (!running) {
    if (removeEmptyCallSync(dirs)) return;
    return await removeTree(dirs.root);
  }
  await removeTree(dirs.outputDir);
  await removeTree(dirs.tmpDir);
  throw new CleanupFailed(
    "A tool call's processes could not be confirmed gone; its record was kept for `toolhost sweep`.",
  );
}

/**
 * The common case on the hot path: the tool left its directories empty. A handful of
 * synchronous `rmdir`/`unlink` calls (none follows a symlink) is far cheaper than a
 * recursive removal's thread-pool round trips; anything unexpected — content, a symlink,
 * a permission — makes it return false, and the robust removal takes over. The three
 * directories are held open across their `rmdir` (held_dirs.ts): removed all the same,
 * but the kernel's reclaim of their blocks (a device discard on the bench VM) is not
 * waited for.
 */
function removeEmptyCallSync(dirs: CallDirs): boolean {
  const held = [dirs.outputDir, dirs.tmpDir, dirs.root].map(holdDir);
  try {
    rmdirSync(dirs.outputDir);
    rmdirSync(dirs.tmpDir);
    for (const f of [CALL_RECORD_FILES.journal, CALL_RECORD_FILES.owner]) {
      try {
        unlinkSync(join(dirs.root, f));
      } catch (e) {
        if ((e as { code?: string }).code !== "ENOENT") throw e;
      }
    }
    rmdirSync(dirs.root);
    return true;
  } catch {
    return false;
  } finally {
    releaseDirs(held);
  }
}

function memo(f: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | undefined;
  return () => (p ??= f());
}

/**
 * Remove a directory tree without following symlinks, whatever its depth, restoring owner
 * permissions a tool may have removed on the way (lib/paths remove_tree.ts).
 *
 * @example
 * ```ts
 * import { removeTree } from "./call_dirs.ts";
 * await removeTree("/tmp/does-not-exist"); // resolves
 * ```
 */
export async function removeTree(path: string): Promise<void> {
  try {
    await removeTreeNoFollow(path);
  } catch (e) {
    // Another toolhost's sweep may have removed the same tree meanwhile.
    if (isGoneSync(path)) return;
    if (e instanceof CleanupFailed) throw e;
    throw new CleanupFailed(
      "A tool call's private directory could not be removed; check its permissions.",
    );
  }
}

/** No entry at `path` any more (not even a dangling symlink). */
function isGoneSync(path: string): boolean {
  try {
    lstatSync(path);
    return false;
  } catch (e) {
    return (e as { code?: string }).code === "ENOENT";
  }
}
