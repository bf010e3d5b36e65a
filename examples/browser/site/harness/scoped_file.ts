/**
 * Reading a file of the eval's scope without following a symlink out of it: the file is
 * opened first, then checked — the check is about the file that was opened, so a symlink
 * swapped in at any moment is refused, never followed.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import { sep } from "node:path";

/** Largest file served from the scope, bytes. */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** A file the harness refuses to read (its message never repeats the path). */
export class FileRefused extends Error {
  /** Stable code. */
  readonly code = "FILE_REFUSED";
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * The real paths of the scope's Artifacts (those that exist).
 *
 * @example
 * ```ts
 * import { scopeRoots } from "./scoped_file.ts";
 * scopeRoots({ site: { path: "/" } }); // ["/"]
 * ```
 */
export function scopeRoots(scope: Record<string, { path: string }>): string[] {
  const roots: string[] = [];
  for (const entry of Object.values(scope)) {
    try {
      roots.push(realpathSync(entry.path));
    } catch { /* gone: nothing inside it can be read */ }
  }
  return roots;
}

/**
 * The bytes and real path of the regular file at `path`, if it lies inside one of
 * `roots`. Opened first (`O_NOFOLLOW`: never through a symlink as its last component;
 * `O_NONBLOCK`: never stuck on a FIFO); then its real path is resolved, must be inside a
 * root, and must be the very file that was opened (same device and inode). Throws
 * {@linkcode FileRefused} otherwise, and for a file above {@linkcode MAX_FILE_BYTES}.
 *
 * @example
 * ```ts
 * import { readScopedFile } from "./scoped_file.ts";
 * const { bytes } = readScopedFile("/etc/hostname", ["/etc"]);
 * console.log(bytes.length > 0); // true
 * ```
 */
export function readScopedFile(path: string, roots: string[]): { bytes: Buffer; real: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    throw new FileRefused(
      "the file does not exist or cannot be opened (symlinks are not followed).",
    );
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw new FileRefused("only regular files can be opened.");
    let real: string;
    let now: { dev: number; ino: number };
    try {
      real = realpathSync(path);
      now = statSync(real);
    } catch {
      throw new FileRefused("the file changed while it was opened.");
    }
    if (now.dev !== opened.dev || now.ino !== opened.ino) {
      throw new FileRefused("the file changed while it was opened.");
    }
    if (!roots.some((root) => inside(real, root))) {
      throw new FileRefused("the file is outside the eval's scope.");
    }
    if (opened.size > MAX_FILE_BYTES) throw new FileRefused("the file is larger than 8 MiB.");
    const bytes = Buffer.alloc(Math.min(opened.size, MAX_FILE_BYTES) + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < bytes.length; length += n) {
      n = readSync(fd, bytes, length, bytes.length - length, null);
    }
    if (length > MAX_FILE_BYTES) throw new FileRefused("the file is larger than 8 MiB.");
    return { bytes: bytes.subarray(0, length), real };
  } finally {
    closeSync(fd);
  }
}
