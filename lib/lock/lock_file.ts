/**
 * `toolhost.lock`: what each eval may expose and run — per listed tool the SHA-256 of
 * its description and canonical input schema and its execution-path pins (the same
 * values as provenance), per session start/stop its pins, per extension its command,
 * args and the tools it listed. Sorted keys, 2-space indentation, trailing newline, so
 * a diff of the file is a review of what changed.
 *
 * ```json
 * {
 *   "evals": {
 *     "app/review": {
 *       "extensions": { "fx": { "args": [], "command": "fx-server", "tools": { "echo": { "description": "…", "inputSchema": "…" } } } },
 *       "sessions": { "web_app.start": { "app/harness": "…" } },
 *       "tools": { "stats_app": { "description": "…", "executionPaths": { "app/tools/stats.mjs": "…" }, "inputSchema": "…" } }
 *     }
 *   },
 *   "lockfileVersion": 1
 * }
 * ```
 *
 * @module
 */

import { rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { showKeyPath } from "../workspace/problems.ts";
import type { Workspace } from "../workspace/types.ts";
import { stableJson } from "./canonical.ts";
import { LockMismatch } from "./errors.ts";
import { readLockText } from "./read_lock_text.ts";

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
 * The format version this toolhost reads and writes.
 *
 * @example
 * ```ts
 * import { LOCK_VERSION } from "./lock_file.ts";
 * LOCK_VERSION; // 1
 * ```
 */
export const LOCK_VERSION = 1;

/** Declared path → SHA-256. */
export type PathPins = Record<string, string>;

/** One listed tool. */
export interface ToolLock {
  /** SHA-256 of the listed description. */
  description: string;
  /** SHA-256 of the canonical input schema. */
  inputSchema: string;
  /** Execution-path pins (empty when none are declared). */
  executionPaths: PathPins;
}

/** One tool an extension listed. */
export interface ExtensionToolLock {
  /** SHA-256 of its description. */
  description: string;
  /** SHA-256 of its canonical input schema. */
  inputSchema: string;
}

/** One extension. */
export interface ExtensionLock {
  /** Command as declared ("" for a remote extension). */
  command: string;
  /** Arguments as declared. */
  args: string[];
  /** A remote extension's URL (never its headers or tokens). */
  url?: string;
  /** Its `enabled_tools`, when declared. */
  enabled_tools?: string[];
  /** Its `disabled_tools`, when declared. */
  disabled_tools?: string[];
  /** Tools it listed, by their own (unpublished) names. */
  tools: Record<string, ExtensionToolLock>;
}

/** One eval. */
export interface EvalLock {
  /** Listed tools by published name. */
  tools: Record<string, ToolLock>;
  /** Session start/stop pins by provenance key (`<session>_<artifact>.start`). */
  sessions: Record<string, PathPins>;
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

const HEX = /^[0-9a-f]{64}$/;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A problem at `at`, a key path that may carry names from a tampered lock (escaped). */
function malformed(at: string, what: string): LockMismatch {
  return new LockMismatch(`toolhost.lock: ${showKeyPath(at)} ${what}`);
}

/** Keys an extension entry may have beyond the required ones. */
const OPTIONAL_EXT = ["url", "enabled_tools", "disabled_tools"];

function exactKeys(
  v: unknown,
  keys: string[],
  at: string,
  optional: string[] = [],
): Record<string, unknown> {
  if (!isObj(v)) throw malformed(at, "must be an object");
  for (const k of Object.keys(v)) {
    if (!keys.includes(k) && !optional.includes(k)) throw malformed(at, "has an unknown key");
  }
  for (const k of keys) {
    if (!Object.hasOwn(v, k)) throw malformed(at, `lacks \`${k}\``);
  }
  return v;
}

function hashMap(v: unknown, at: string): Record<string, string> {
  if (!isObj(v) || !Object.values(v).every((h) => typeof h === "string" && HEX.test(h))) {
    throw malformed(at, "must map names to SHA-256 hex digests");
  }
  return v as Record<string, string>;
}

function hashPair(v: unknown, at: string, extra: string[] = []): Record<string, unknown> {
  const o = exactKeys(v, ["description", "inputSchema", ...extra], at);
  hashMap({ d: o.description, s: o.inputSchema }, at);
  return o;
}

function checkEval(id: string, v: unknown): void {
  const at = `evals.${id}`;
  const e = exactKeys(v, ["tools", "sessions", "extensions"], at);
  if (!isObj(e.tools) || !isObj(e.sessions) || !isObj(e.extensions)) {
    throw malformed(at, "must hold tools, sessions and extensions objects");
  }
  for (const [n, t] of Object.entries(e.tools)) {
    hashMap(hashPair(t, `${at}.tools.${n}`, ["executionPaths"]).executionPaths, `${at}.tools.${n}`);
  }
  for (const [k, pins] of Object.entries(e.sessions)) hashMap(pins, `${at}.sessions.${k}`);
  for (const [n, x] of Object.entries(e.extensions)) {
    const o = exactKeys(x, ["command", "args", "tools"], `${at}.extensions.${n}`, OPTIONAL_EXT);
    const strings = (v: unknown) => Array.isArray(v) && v.every((a) => typeof a === "string");
    const optionalOk = (o.url === undefined || typeof o.url === "string") &&
      (o.enabled_tools === undefined || strings(o.enabled_tools)) &&
      (o.disabled_tools === undefined || strings(o.disabled_tools));
    if (typeof o.command !== "string" || !strings(o.args) || !isObj(o.tools) || !optionalOk) {
      throw malformed(`${at}.extensions.${n}`, "is malformed");
    }
    for (const [tn, t] of Object.entries(o.tools)) hashPair(t, `${at}.extensions.${n}.tools.${tn}`);
  }
}

/**
 * Parse and check a lock file's text. Throws {@link LockMismatch} (naming where, never
 * quoting content) for invalid JSON, another version or a malformed entry.
 *
 * @example
 * ```ts
 * import { parseLockFile } from "./lock_file.ts";
 * parseLockFile('{"evals":{},"lockfileVersion":1}').evals; // {}
 * ```
 */
export function parseLockFile(text: string): LockFile {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new LockMismatch("toolhost.lock is not valid JSON; review it or run `toolhost lock`");
  }
  const o = exactKeys(v, ["lockfileVersion", "evals"], "the top level");
  if (o.lockfileVersion !== LOCK_VERSION) {
    throw new LockMismatch(
      `toolhost.lock has lockfileVersion other than ${LOCK_VERSION}; run \`toolhost lock\` with this toolhost`,
    );
  }
  if (!isObj(o.evals)) throw new LockMismatch("toolhost.lock: evals must be an object");
  for (const [id, e] of Object.entries(o.evals)) checkEval(id, e);
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
 * renderLockFile({ lockfileVersion: 1, evals: {} }); // '{\n  "evals": {},\n  "lockfileVersion": 1\n}\n'
 * ```
 */
export function renderLockFile(lock: LockFile): string {
  return stableJson(lock);
}

/**
 * Write the lock file atomically (a temporary file renamed over it).
 *
 * @example
 * ```ts
 * import { writeLockFile } from "./lock_file.ts";
 * // await writeLockFile(ws, lock);
 * ```
 */
export async function writeLockFile(ws: Pick<Workspace, "root">, lock: LockFile): Promise<void> {
  const tmp = `${lockPath(ws)}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(tmp, renderLockFile(lock), { flag: "wx", mode: 0o644 });
    await rename(tmp, lockPath(ws));
  } finally {
    await rm(tmp, { force: true }).catch(() => {});
  }
}
