/**
 * Checking the shape of a parsed `toolhost.lock` before anything trusts it: exact keys,
 * SHA-256 hex digests where digests belong, JSON objects where declarations belong.
 * Problems name where (escaped key paths), never quote content. A lock of an older
 * format is refused with how to regenerate it.
 *
 * @module
 */

import { showKeyPath } from "../workspace/problems.ts";
import { LockMismatch } from "./errors.ts";
import { toolHashes } from "./canonical.ts";

const HEX = /^[0-9a-f]{64}$/;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A problem at `at`, a key path that may carry names from a tampered lock (escaped). */
function malformed(at: string, what: string): LockMismatch {
  return new LockMismatch(
    `toolhost.lock: ${showKeyPath(at)} ${what}; review it or run \`toolhost lock\``,
  );
}

function exactKeys(v: unknown, keys: readonly string[], at: string): Record<string, unknown> {
  if (!isObj(v)) throw malformed(at, "must be an object");
  for (const k of Object.keys(v)) {
    if (!keys.includes(k)) throw malformed(at, "has an unknown key");
  }
  for (const k of keys) {
    if (!Object.hasOwn(v, k)) throw malformed(at, `lacks \`${k}\``);
  }
  return v;
}

function hashMap(v: unknown, at: string): void {
  if (!isObj(v) || !Object.values(v).every((h) => typeof h === "string" && HEX.test(h))) {
    throw malformed(at, "must map names to SHA-256 hex digests");
  }
}

function objectAt(v: unknown, at: string): Record<string, unknown> {
  if (!isObj(v)) throw malformed(at, "must be an object");
  return v;
}

function programs(v: unknown, at: string): void {
  for (const [role, pin] of Object.entries(objectAt(v, at))) {
    const o = exactKeys(pin, ["path", "sha256"], `${at}.${role}`);
    if (typeof o.path !== "string" || typeof o.sha256 !== "string" || !HEX.test(o.sha256)) {
      throw malformed(`${at}.${role}`, "must hold a path and a SHA-256 hex digest");
    }
  }
}

function hashPair(v: unknown, at: string, extra: readonly string[] = []): Record<string, unknown> {
  const o = exactKeys(v, ["description", "inputSchema", ...extra], at);
  hashMap({ d: o.description, s: o.inputSchema }, at);
  return o;
}

const TOOL_KEYS = ["declaration", "executionPaths", "programs"];
const EXTENSION_KEYS = ["declaration", "programs", "tools"];

/** An extension tool: its digests, and optionally its listing, which must hash to them. */
function extensionTool(v: unknown, at: string): void {
  if (!isObj(v) || !Object.hasOwn(v, "listing")) {
    hashPair(v, at);
    return;
  }
  const o = hashPair(v, at, ["listing"]);
  const l = exactKeys(o.listing, ["description", "inputSchema"], `${at}.listing`);
  if (typeof l.description !== "string" || !isObj(l.inputSchema)) {
    throw malformed(`${at}.listing`, "must hold a description and an input schema object");
  }
  const h = toolHashes(l.description, l.inputSchema);
  if (h.description !== o.description || h.inputSchema !== o.inputSchema) {
    throw malformed(`${at}.listing`, "does not match its digests");
  }
}

function checkEval(id: string, v: unknown): void {
  const at = `evals.${id}`;
  const e = exactKeys(v, ["declaration", "programs", "tools", "sessions", "extensions"], at);
  objectAt(e.declaration, `${at}.declaration`);
  programs(e.programs, `${at}.programs`);
  for (const [n, t] of Object.entries(objectAt(e.tools, `${at}.tools`))) {
    const o = hashPair(t, `${at}.tools.${n}`, TOOL_KEYS);
    objectAt(o.declaration, `${at}.tools.${n}.declaration`);
    hashMap(o.executionPaths, `${at}.tools.${n}.executionPaths`);
    programs(o.programs, `${at}.tools.${n}.programs`);
  }
  for (const [k, s] of Object.entries(objectAt(e.sessions, `${at}.sessions`))) {
    const o = exactKeys(s, TOOL_KEYS, `${at}.sessions.${k}`);
    objectAt(o.declaration, `${at}.sessions.${k}.declaration`);
    const pins = exactKeys(
      o.executionPaths,
      ["start", "stop"],
      `${at}.sessions.${k}.executionPaths`,
    );
    hashMap(pins.start, `${at}.sessions.${k}.executionPaths.start`);
    hashMap(pins.stop, `${at}.sessions.${k}.executionPaths.stop`);
    programs(o.programs, `${at}.sessions.${k}.programs`);
  }
  for (const [n, x] of Object.entries(objectAt(e.extensions, `${at}.extensions`))) {
    // `executionPaths` only when the extension declares execution paths.
    const pinned = isObj(x) && Object.hasOwn(x, "executionPaths") ? ["executionPaths"] : [];
    const o = exactKeys(x, EXTENSION_KEYS.concat(pinned), `${at}.extensions.${n}`);
    objectAt(o.declaration, `${at}.extensions.${n}.declaration`);
    programs(o.programs, `${at}.extensions.${n}.programs`);
    if (pinned.length > 0) hashMap(o.executionPaths, `${at}.extensions.${n}.executionPaths`);
    const tools = objectAt(o.tools, `${at}.extensions.${n}.tools`);
    for (const [tn, t] of Object.entries(tools)) {
      extensionTool(t, `${at}.extensions.${n}.tools.${tn}`);
    }
  }
}

/**
 * Check a parsed lock value against format `version`; throws `LockMismatch` naming the
 * first problem. A lock of another version is refused with how to regenerate it.
 *
 * @example
 * ```ts
 * import { checkLockValue } from "./validate_lock.ts";
 * checkLockValue({ lockfileVersion: 2, evals: {} }, 2);
 * ```
 */
export function checkLockValue(v: unknown, version: number): void {
  if (isObj(v) && typeof v.lockfileVersion === "number" && v.lockfileVersion !== version) {
    const older = v.lockfileVersion < version;
    throw new LockMismatch(
      older
        ? `toolhost.lock has format version ${v.lockfileVersion}, which did not pin tool ` +
          "declarations, programs or sessions; review the workspace, then run `toolhost lock` " +
          `to regenerate it in format ${version} (until then no eval of this workspace opens)`
        : `toolhost.lock has format version ${v.lockfileVersion}, newer than this toolhost ` +
          `reads (${version}); upgrade toolhost or run \`toolhost lock\` with this one`,
    );
  }
  const o = exactKeys(v, ["lockfileVersion", "evals"], "the top level");
  if (o.lockfileVersion !== version) {
    throw malformed("lockfileVersion", `must be ${version}`);
  }
  for (const [id, e] of Object.entries(objectAt(o.evals, "evals"))) checkEval(id, e);
}
