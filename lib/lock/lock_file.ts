/**
 * `toolhost.lock`: what each eval may expose and run. Per eval: its own declaration (the
 * eval table, plugins, hook commands, top-level tables) and the programs its hooks run;
 * per listed tool the SHA-256 of its description and canonical input schema, its whole
 * canonical declaration (see `declaration.ts`), its execution-path pins (the provenance
 * values) and the programs it runs (path and SHA-256, interpreters included); per bound
 * session its declaration, pins and programs; per extension its declaration, programs
 * (and execution-path pins, when it declares any) and the tools it listed. Sorted keys,
 * 2-space indentation, trailing newline, so a diff of the file is a review of what
 * changed.
 *
 * ```json
 * {
 *   "evals": {
 *     "app/review": {
 *       "declaration": { "eval": { "audience": "agent" }, "hooks": [], "plugins": {}, "workspace": {} },
 *       "extensions": { "fx": { "declaration": { "args": [], "command": "fx-server" }, "programs": {}, "tools": {} } },
 *       "programs": {},
 *       "sessions": { "web_app": { "declaration": {}, "executionPaths": { "start": {}, "stop": {} }, "programs": {} } },
 *       "tools": {
 *         "search_app": {
 *           "declaration": { "args": ["-rnF", "--", "{query}", "."], "command": "grep", "protocol": "plain" },
 *           "description": "…", "executionPaths": {}, "inputSchema": "…",
 *           "programs": { "command": { "path": "/usr/bin/grep", "sha256": "…" } }
 *         }
 *       }
 *     }
 *   },
 *   "lockfileVersion": 2
 * }
 * ```
 *
 * @module
 */

import { rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Workspace } from "../workspace/types.ts";
import type { ProgramPins } from "../pins/program_pin.ts";
import { stableJson } from "./canonical.ts";
import type { Declaration } from "./declaration.ts";
import { readLockText } from "./read_lock_text.ts";
import { duplicateKey } from "./duplicate_keys.ts";
import { checkLockValue } from "./validate_lock.ts";
import { LockMismatch } from "./errors.ts";
import { MAX_LOCK_DEPTH, refuseUnreadableDepth, tooDeepAt } from "./lock_depth.ts";

export { MAX_LOCK_DEPTH };

export type { ProgramPin, ProgramPins } from "../pins/program_pin.ts";
export type { Declaration } from "./declaration.ts";

/**
 * File name, in the workspace root.
 *
 * @example
 * ```ts
 * import { LOCK_FILE_NAME } from "./lock_file.ts";
 * LOCK_FILE_NAME; // "toolhost.lock"
 * ```
 */
export const LOCK_FILE_NAME = "toolhost.lock";
/**
 * The format version this toolhost reads and writes. Version 1 (description, schema and
 * execution-path hashes only) is refused with a message saying how to regenerate it.
 *
 * @example
 * ```ts
 * import { LOCK_VERSION } from "./lock_file.ts";
 * LOCK_VERSION; // 2
 * ```
 */
export const LOCK_VERSION = 2;

/** Declared path → SHA-256. */
export type PathPins = Record<string, string>;

/** One listed tool. */
export interface ToolLock {
  /** SHA-256 of the listed description. */
  description: string;
  /** SHA-256 of the canonical input schema. */
  inputSchema: string;
  /** The canonical declaration (`{}` for toolhost's own artifact and plugin tools). */
  declaration: Declaration;
  /** Execution-path pins (empty when none are declared). */
  executionPaths: PathPins;
  /** Programs it runs, by role. */
  programs: ProgramPins;
}

/** One tool session bound by a listed tool (`<session>_<artifact>`). */
export interface SessionLock {
  /** The canonical session declaration (start, stop, limits, …). */
  declaration: Declaration;
  /** Execution-path pins of its start and stop commands. */
  executionPaths: { start: PathPins; stop: PathPins };
  /** Programs its start and stop commands run (`start`, `stop interpreter`, …). */
  programs: ProgramPins;
}

/** One tool an extension listed. */
export interface ExtensionToolLock {
  /** SHA-256 of its description. */
  description: string;
  /** SHA-256 of its canonical input schema. */
  inputSchema: string;
  /**
   * The tool as listed (hashing to the two digests), so an eval with a current lock lists
   * the extension's tools without starting it. Absent in locks written before.
   */
  listing?: { description: string; inputSchema: Record<string, unknown> };
}

/** One extension. */
export interface ExtensionLock {
  /** The canonical extension declaration (command, args, env hashed, …). */
  declaration: Declaration;
  /** The program it runs, by role. */
  programs: ProgramPins;
  /**
   * Pins of its declared `execution_paths` (declared path → SHA-256); absent when it
   * declares none.
   */
  executionPaths?: PathPins;
  /** Tools it listed, by their own (unpublished) names. */
  tools: Record<string, ExtensionToolLock>;
}

/** One eval. */
export interface EvalLock {
  /** The eval's own declaration, which all its tools depend on. */
  declaration: Declaration;
  /** Programs its hook commands run, by `hooks.EVENT[i]` (and `… interpreter`). */
  programs: ProgramPins;
  /** Listed tools by published name. */
  tools: Record<string, ToolLock>;
  /** Bound sessions by `<session>_<artifact>`. */
  sessions: Record<string, SessionLock>;
  /** Admitted extensions by name. */
  extensions: Record<string, ExtensionLock>;
}

/** The whole file. */
export interface LockFile {
  /** Always {@link LOCK_VERSION}. */
  lockfileVersion: number;
  /** Evals by id. */
  evals: Record<string, EvalLock>;
}

/** Throw {@link LockMismatch} when `v` nests deeper than {@link MAX_LOCK_DEPTH} (iterative). */
function refuseDeepValue(v: unknown): void {
  // The keys of a tampered lock are not shown: only that it is too deep.
  if (tooDeepAt(v, MAX_LOCK_DEPTH) === undefined) return;
  throw new LockMismatch(
    `toolhost.lock: a value is nested deeper than ${MAX_LOCK_DEPTH} levels; review it or ` +
      "run `toolhost lock`",
  );
}

/**
 * Parse and check a lock file's text. Throws {@link LockMismatch} (naming where, never
 * quoting content) for invalid JSON, another version or a malformed entry.
 *
 * @example
 * ```ts
 * import { parseLockFile } from "./lock_file.ts";
 * parseLockFile('{"evals":{},"lockfileVersion":2}').evals; // {}
 * ```
 */
export function parseLockFile(text: string): LockFile {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new LockMismatch("toolhost.lock is not valid JSON; review it or run `toolhost lock`");
  }
  refuseDeepValue(v);
  const twice = duplicateKey(text);
  if (twice !== undefined) {
    throw new LockMismatch(
      `toolhost.lock: an object at depth ${twice.depth} holds one key twice (JSON would ` +
        "keep only the last, a reader may take the first); review it or run `toolhost lock`",
    );
  }
  checkLockValue(v, LOCK_VERSION);
  return v as LockFile;
}

/**
 * The lock file's path for a workspace.
 *
 * @example
 * ```ts
 * import { lockPath } from "./lock_file.ts";
 * // lockPath(ws) → "<workspace>/toolhost.lock"
 * ```
 */
export function lockPath(ws: Pick<Workspace, "root">): string {
  return join(ws.root, LOCK_FILE_NAME);
}

/**
 * Read the workspace's lock file: undefined when there is none; throws
 * {@link LockMismatch} when it exists but cannot be used (not a regular file — a FIFO,
 * a symlink, a folder —, over 8 MiB, unreadable, malformed).
 *
 * @example
 * ```ts
 * import { readLockFile } from "./lock_file.ts";
 * // const lock = await readLockFile(ws);
 * ```
 */
export async function readLockFile(ws: Pick<Workspace, "root">): Promise<LockFile | undefined> {
  const text = await readLockText(lockPath(ws));
  return text === undefined ? undefined : parseLockFile(text);
}

/**
 * Render a lock as its file text (sorted keys, 2-space indent, trailing newline).
 *
 * @example
 * ```ts
 * import { renderLockFile } from "./lock_file.ts";
 * renderLockFile({ lockfileVersion: 2, evals: {} }); // '{\n  "evals": {},\n  "lockfileVersion": 2\n}\n'
 * ```
 */
export function renderLockFile(lock: LockFile): string {
  return stableJson(lock);
}

/**
 * Write the lock file atomically (a temporary file renamed over it). A lock nested
 * deeper than {@link MAX_LOCK_DEPTH} levels, which the reader would refuse, is not
 * written: a `PreparationFailed` names where.
 *
 * @example
 * ```ts
 * import { writeLockFile } from "./lock_file.ts";
 * // await writeLockFile(ws, lock);
 * ```
 */
export async function writeLockFile(ws: Pick<Workspace, "root">, lock: LockFile): Promise<void> {
  refuseUnreadableDepth(lock);
  const tmp = `${lockPath(ws)}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(tmp, renderLockFile(lock), { flag: "wx", mode: 0o644 });
    await rename(tmp, lockPath(ws));
  } finally {
    await rm(tmp, { force: true }).catch(() => {});
  }
}
