/**
 * Streaming SHA-256 of an artifact file, bound to the identity established by `stat`.
 *
 * @module
 */

import { constants, promises as fsp } from "node:fs";
import { createHash } from "node:crypto";

/** Identity a file must still have when it is opened. */
export interface FileIdentity {
  /** Device id. */
  dev: bigint;
  /** Inode number. */
  ino: bigint;
  /** Size in bytes. */
  size: number;
}

/** Read chunk size for hashing and content reads (4 MiB). */
export const READ_CHUNK_BYTES: number = 4 * 1024 * 1024;

/** Flags for opening an artifact: read-only, never through a final symlink, never blocking. */
export const SAFE_OPEN_FLAGS: number = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NONBLOCK ?? 0);

/** Thrown when the file on disk is no longer the one that was checked. */
export class FileChangedError extends Error {
  /** Create the error (no path, no content). */
  constructor() {
    super("the file changed since it was checked");
    this.name = "FileChangedError";
  }
}

/**
 * Confirm that the open file `fh` is the file at the resolved path `path`. On Linux the
 * kernel's own name for the descriptor (`/proc/self/fd/N`) must equal `path`, which
 * closes the window in which a directory component could be swapped for a symlink
 * between checking and opening. Where `/proc` is unavailable, `path` must still resolve
 * to itself and `lstat` to the same device and inode (a narrower, best-effort check).
 * Throws {@link FileChangedError} otherwise.
 *
 * @example
 * ```ts
 * import { confirmOpenedPath } from "./hash.ts";
 * import { promises as fsp } from "node:fs";
 * const fh = await fsp.open("/etc/hostname");
 * try { await confirmOpenedPath(fh, "/etc/hostname"); } finally { await fh.close(); }
 * ```
 */
export async function confirmOpenedPath(fh: fsp.FileHandle, path: string): Promise<void> {
  let viaProc: string | undefined;
  try {
    viaProc = await fsp.readlink(`/proc/self/fd/${fh.fd}`);
  } catch {
    viaProc = undefined;
  }
  if (viaProc !== undefined) {
    if (viaProc !== path) throw new FileChangedError();
    return;
  }
  try {
    const [st, real, link] = await Promise.all([
      fh.stat({ bigint: true }),
      fsp.realpath(path),
      fsp.lstat(path, { bigint: true }),
    ]);
    if (real !== path || link.dev !== st.dev || link.ino !== st.ino) throw new FileChangedError();
  } catch {
    throw new FileChangedError();
  }
}

/**
 * Open the resolved path `path` safely and confirm with `fstat` that it is still the
 * regular file `expect` describes (same device, inode and size) and, with
 * {@link confirmOpenedPath}, that the descriptor really is that path; otherwise throw
 * {@link FileChangedError}. The caller must close the handle.
 *
 * @example
 * ```ts
 * import { openSameFile } from "./hash.ts";
 * import { promises as fsp } from "node:fs";
 * const st = await fsp.stat("/etc/hostname", { bigint: true });
 * const fh = await openSameFile("/etc/hostname", { dev: st.dev, ino: st.ino, size: Number(st.size) });
 * await fh.close();
 * ```
 */
export async function openSameFile(path: string, expect: FileIdentity): Promise<fsp.FileHandle> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(path, SAFE_OPEN_FLAGS);
  } catch {
    throw new FileChangedError();
  }
  try {
    const st = await fh.stat({ bigint: true });
    if (
      !st.isFile() || st.dev !== expect.dev || st.ino !== expect.ino ||
      st.size !== BigInt(expect.size)
    ) {
      throw new FileChangedError();
    }
    await confirmOpenedPath(fh, path);
    return fh;
  } catch (e) {
    await fh.close().catch(() => {});
    throw e instanceof FileChangedError ? e : new FileChangedError();
  }
}

/**
 * Stream `expect.size` bytes of an open file through `onChunk`. Throws
 * {@link FileChangedError} when the file is shorter or longer than expected.
 *
 * @example
 * ```ts
 * import { openSameFile, readExactly } from "./hash.ts";
 * import { promises as fsp } from "node:fs";
 * const st = await fsp.stat("/etc/hostname", { bigint: true });
 * const id = { dev: st.dev, ino: st.ino, size: Number(st.size) };
 * const fh = await openSameFile("/etc/hostname", id);
 * try { await readExactly(fh, id.size, (c) => console.log(c.length)); } finally { await fh.close(); }
 * ```
 */
export async function readExactly(
  fh: fsp.FileHandle,
  size: number,
  onChunk: (chunk: Uint8Array) => void,
): Promise<void> {
  const buf = new Uint8Array(Math.max(1, Math.min(READ_CHUNK_BYTES, size + 1)));
  let total = 0;
  while (true) {
    let n: number;
    try {
      ({ bytesRead: n } = await fh.read(buf, 0, buf.length, total));
    } catch {
      throw new FileChangedError();
    }
    if (n === 0) break;
    total += n;
    if (total > size) throw new FileChangedError();
    onChunk(buf.subarray(0, n));
  }
  if (total !== size) throw new FileChangedError();
}

/**
 * SHA-256 (lowercase hex) of the file at `path`, which must still be the regular file
 * described by `expect`. Reads exactly `expect.size` bytes.
 *
 * @example
 * ```ts
 * import { sha256OfSameFile } from "./hash.ts";
 * import { promises as fsp } from "node:fs";
 * const st = await fsp.stat("/etc/hostname", { bigint: true });
 * await sha256OfSameFile("/etc/hostname", { dev: st.dev, ino: st.ino, size: Number(st.size) });
 * ```
 */
export async function sha256OfSameFile(path: string, expect: FileIdentity): Promise<string> {
  const fh = await openSameFile(path, expect);
  try {
    const hash = createHash("sha256");
    await readExactly(fh, expect.size, (chunk) => hash.update(chunk));
    return hash.digest("hex");
  } finally {
    await fh.close().catch(() => {});
  }
}
