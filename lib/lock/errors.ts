/**
 * The lock error: `LOCK_MISMATCH`.
 *
 * @module
 */

import { ToolhostError } from "../errors/errors.ts";

/**
 * What toolhost exposes or would run differs from `toolhost.lock`, or the lock file
 * itself cannot be used. The message names tools and fields, never contents.
 *
 * @example
 * ```ts
 * import { LockMismatch } from "./errors.ts";
 * const e = new LockMismatch("toolhost.lock is not valid JSON; run `toolhost lock`");
 * console.log(e.code); // "LOCK_MISMATCH"
 * ```
 */
export class LockMismatch extends ToolhostError {
  /** Create a lock error. */
  constructor(message: string) {
    super("LOCK_MISMATCH", message);
  }
}
