/**
 * Opening the lock of a registry: read `toolhost.lock` (if the workspace has one) and
 * verify the registry against it, or — with verification turned off — say so loudly.
 *
 * @module
 */

import process from "node:process";
import type { Workspace } from "../workspace/types.ts";
import { lockPath, readLockFile } from "./lock_file.ts";
import { lockEntryExists } from "./read_lock_text.ts";
import { type LockInputs, RegistryLock } from "./registry_lock.ts";

/**
 * The warning printed when lock verification is turned off.
 *
 * @example
 * ```ts
 * import { NO_LOCK_WARNING } from "./open_lock.ts";
 * console.error(NO_LOCK_WARNING);
 * ```
 */
export const NO_LOCK_WARNING =
  "toolhost: WARNING: lock verification is OFF (--no-lock / lock: false): toolhost.lock is " +
  "not checked, so changed tools, descriptions and binaries run unreviewed. Use this only " +
  "for development.";

let warned = false;

/**
 * Print {@link NO_LOCK_WARNING}: to `write` every time (the CLI's `--no-lock`), or to
 * stderr once per process (the library's `lock: false`, when a lock file exists).
 *
 * @example
 * ```ts
 * import { warnLockDisabled } from "./open_lock.ts";
 * warnLockDisabled((line) => console.error(line));
 * ```
 */
export function warnLockDisabled(write?: (line: string) => void): void {
  if (write === undefined && warned) return;
  warned = true;
  (write ?? ((l: string) => void process.stderr.write(l)))(`${NO_LOCK_WARNING}\n`);
}

/**
 * The registry's lock: undefined when the workspace has no `toolhost.lock`, when the
 * selection has no eval, or when `enabled` is false (then a warning is printed if a lock
 * file exists) or `"ignore"` (silently). Throws `LockMismatch` for a lock file that cannot be used.
 *
 * @example
 * ```ts
 * import { openRegistryLock } from "./open_lock.ts";
 * // const lock = await openRegistryLock(ws, () => lockInputs(reg));
 * ```
 */
export async function openRegistryLock(
  ws: Pick<Workspace, "root">,
  inputs: () => Promise<LockInputs>,
  enabled: boolean | "ignore" = true,
): Promise<RegistryLock | undefined> {
  if (enabled === "ignore") return undefined;
  if (!enabled) {
    if (lockEntryExists(lockPath(ws))) warnLockDisabled();
    return undefined;
  }
  const file = await readLockFile(ws);
  // Programs are hashed only when there is a lock to compare them with.
  return file === undefined ? undefined : RegistryLock.verify(file, await inputs());
}
