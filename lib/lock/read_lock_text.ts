/**
 * Reading `toolhost.lock`'s text without ever blocking or following a link: opened
 * non-blocking and without following a symlink, then required (on the open descriptor)
 * to be a regular file of at most 8 MiB. A FIFO, a device, a folder or a symlink at that
 * name is an error naming the file, never a hang.
 *
 * @module
 */

import { constants, lstatSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { LIMITS } from "../results/types.ts";
import { LockMismatch } from "./errors.ts";

/** Most bytes of a lock file (the same cap as the manifest's). */
export const MAX_LOCK_BYTES = LIMITS.maxDeclarationBytes;

// O_NONBLOCK: opening a FIFO with no writer returns at once; O_NOFOLLOW: a symlink fails
// (ELOOP). Both are 0 where the platform lacks them (Windows has no FIFOs or such links).
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * Is there an entry named `toolhost.lock` at `path`, of any kind (a dangling symlink
 * too)? For the checks that only ask whether there is a lock: an entry that is not a
 * usable lock is then refused by {@link readLockText}, never taken for no lock.
 *
 * @example
 * ```ts
 * import { lockEntryExists } from "./read_lock_text.ts";
 * lockEntryExists("/nonexistent/toolhost.lock"); // false
 * ```
 */
export function lockEntryExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The lock's bytes as text; bytes that are not UTF-8 are refused, never replaced (two
 * different files would otherwise read as one lock).
 */
function decodeLock(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new LockMismatch(
      "toolhost.lock is not UTF-8 text; review it or run `toolhost lock`",
    );
  }
}

/**
 * The lock file's text, or undefined when there is none. Throws {@link LockMismatch}
 * (naming `toolhost.lock`, never a physical path) when it cannot be used.
 *
 * @example
 * ```ts
 * import { readLockText } from "./read_lock_text.ts";
 * // const text = await readLockText("/ws/toolhost.lock");
 * ```
 */
export async function readLockText(path: string): Promise<string | undefined> {
  let fh: FileHandle;
  try {
    fh = await open(path, FLAGS);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP" || code === "EMLINK") {
      throw new LockMismatch(
        "toolhost.lock must be a regular file, not a symlink (toolhost never follows one): " +
          "replace the link with the file it points to, or remove it and run `toolhost lock`",
      );
    }
    throw new LockMismatch(
      `toolhost.lock exists but cannot be read (${typeof code === "string" ? code : "error"})`,
    );
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new LockMismatch("toolhost.lock must be a regular file");
    if (st.size > MAX_LOCK_BYTES) {
      throw new LockMismatch(
        `toolhost.lock is ${st.size} bytes; the lock is capped at 8 MiB (${MAX_LOCK_BYTES})`,
      );
    }
    const buf = new Uint8Array(st.size);
    let off = 0;
    while (off < buf.length) {
      const { bytesRead } = await fh.read(buf, off, buf.length - off, off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    return decodeLock(buf.subarray(0, off));
  } catch (e) {
    if (e instanceof LockMismatch) throw e;
    throw new LockMismatch("toolhost.lock exists but cannot be read");
  } finally {
    await fh.close().catch(() => {});
  }
}
