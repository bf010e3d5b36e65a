/**
 * `toolhost.lock`: pin what each eval may expose and run, verify registries
 * and extensions against it, and report drift.
 *
 * @example
 * ```ts
 * import { LockMismatch, parseLockFile } from "./mod.ts";
 * try {
 *   parseLockFile('{"evals":{},"lockfileVersion":1}');
 * } catch (e) {
 *   e instanceof LockMismatch; // true: format 1 did not pin programs; regenerate the lock
 * }
 * ```
 *
 * @module
 */

export { describeDrift } from "./compare.ts";
export type { Drift } from "./compare.ts";
export { diffLocks } from "./diff_locks.ts";
export { LockMismatch } from "./errors.ts";
export { ExtensionLockCheck, extensionLockFor } from "./extension_lock.ts";
export {
  LOCK_FILE_NAME,
  LOCK_VERSION,
  lockPath,
  parseLockFile,
  readLockFile,
  renderLockFile,
  writeLockFile,
} from "./lock_file.ts";
export type {
  EvalLock,
  ExtensionLock,
  ExtensionToolLock,
  LockFile,
  ToolLock,
} from "./lock_file.ts";
export { NO_LOCK_WARNING } from "./open_lock.ts";
export { BLOCKED_DESCRIPTION, RegistryLock } from "./registry_lock.ts";
export { lockSection } from "./lock_section.ts";
export type { LockSection } from "./lock_section.ts";
