/**
 * Building and checking `toolhost.lock` against a workspace: opens each eval's registry
 * (and, to list them, its extensions). The registry depends on `lib/lock`; this layer
 * sits above both.
 *
 * @example
 * ```ts
 * import { buildLock } from "./mod.ts";
 * import { loadWorkspace } from "../workspace/load_workspace.ts";
 * const ws = await loadWorkspace("examples");
 * const lock = await buildLock(ws);
 * Object.keys(lock.evals).length > 0; // true
 * // `writeLockFile(ws, lock)` (../lock/lock_file.ts) would write it as <workspace>/toolhost.lock
 * ```
 *
 * @module
 */

export { buildLock, extensionLock } from "./build_lock.ts";
export type { BuildLockOptions } from "./build_lock.ts";
export { lockSectionFor } from "./check_lock.ts";
