/**
 * Stream a regular file through `node:crypto` SHA-256 without following symlinks.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import type { BigIntStats } from "node:fs";
import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";

/** Largest read buffer: 4 MiB (two are used, so reads overlap hashing). */
export const HASH_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Files up to this size (256 KiB) are hashed with synchronous calls: per-file async
 * overhead dominates small files, and one such file blocks the event loop well under 1 ms.
 */
export const SMALL_FILE_BYTES = 256 * 1024;

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NONBLOCK ?? 0);

/** Why hashing a file stopped; the caller turns it into a message. */
export class FileChanged extends Error {
  /** Create a marker error (no path, no contents). */
  constructor(reason: string) {
    super(reason);
    this.name = "FileChanged";
  }
}

/**
 * SHA-256 (lowercase hex) of a regular file that was `lstat`ed as `expected`. Opens with
 * `O_NOFOLLOW | O_NONBLOCK` (a symlink or FIFO swapped in cannot be followed or block), checks
 * that `fstat` matches `expected` (device, inode, size, regular file) and that exactly
 * `expected.size` bytes are read. Throws {@linkcode FileChanged} on a mismatch, or the fs error.
 *
 * @example
 * ```ts
 * import { lstat } from "node:fs/promises";
 * import { hashRegularFile } from "./hash_file.ts";
 * const st = await lstat("deno.json", { bigint: true });
 * console.log(await hashRegularFile("deno.json", st));
 * ```
 */
export async function hashRegularFile(abs: string, expected: BigIntStats): Promise<string> {
  if (expected.size <= BigInt(SMALL_FILE_BYTES)) return hashSmallFileSync(abs, expected);
  const fh = await open(abs, OPEN_FLAGS);
  try {
    checkSame(await fh.stat({ bigint: true }), expected);
    return await hashHandle(fh, Number(expected.size));
  } finally {
    await fh.close();
  }
}

function checkSame(st: BigIntStats, expected: BigIntStats): void {
  if (!st.isFile()) throw new FileChanged("is no longer a regular file");
  if (st.dev !== expected.dev || st.ino !== expected.ino || st.size !== expected.size) {
    throw new FileChanged("changed while it was being pinned");
  }
}

let smallBuffer: Buffer | undefined;

/**
 * {@linkcode hashRegularFile} with synchronous calls, for files of at most
 * {@linkcode SMALL_FILE_BYTES} (the same checks; reads stop one byte past the limit).
 *
 * @example
 * ```ts
 * import { lstatSync } from "node:fs";
 * import { hashSmallFileSync } from "./hash_file.ts";
 * console.log(hashSmallFileSync("deno.json", lstatSync("deno.json", { bigint: true })));
 * ```
 */
export function hashSmallFileSync(abs: string, expected: BigIntStats): string {
  const size = Number(expected.size);
  if (size > SMALL_FILE_BYTES) throw new RangeError("file is larger than SMALL_FILE_BYTES");
  const fd = openSync(abs, OPEN_FLAGS);
  try {
    checkSame(fstatSync(fd, { bigint: true }), expected);
    return hashOpenSmallFile(fd, size);
  } finally {
    closeSync(fd);
  }
}

/**
 * SHA-256 (lowercase hex) of the `size` bytes (at most {@linkcode SMALL_FILE_BYTES}) of the
 * regular file open on `fd`, read from its current offset into one reused buffer. Asks for
 * one byte more than `size`: a read that returns less than it asked has met the end of a
 * regular file, so the usual file takes one read, not a second one to see end of file.
 * Throws {@linkcode FileChanged} when the file holds more or fewer bytes than `size`.
 *
 * @example
 * ```ts
 * import { closeSync, fstatSync, openSync } from "node:fs";
 * import { hashOpenSmallFile } from "./hash_file.ts";
 * const fd = openSync("deno.json", "r");
 * try {
 *   console.log(hashOpenSmallFile(fd, fstatSync(fd).size));
 * } finally {
 *   closeSync(fd);
 * }
 * ```
 */
export function hashOpenSmallFile(fd: number, size: number): string {
  if (size > SMALL_FILE_BYTES) throw new RangeError("file is larger than SMALL_FILE_BYTES");
  smallBuffer ??= Buffer.allocUnsafe(SMALL_FILE_BYTES + 1);
  const buf = smallBuffer;
  const want = size + 1;
  let total = 0;
  for (;;) {
    const asked = want - total;
    const n = readSync(fd, buf, total, asked, null);
    total += n;
    if (total > size) throw new FileChanged("grew while it was being pinned");
    if (n === 0 || (n < asked && total === size)) break;
  }
  if (total !== size) throw new FileChanged("shrank while it was being pinned");
  return createHash("sha256").update(buf.subarray(0, total)).digest("hex");
}

/** Read `fh` to EOF with two alternating buffers, failing if the size differs from `size`. */
async function hashHandle(fh: FileHandle, size: number): Promise<string> {
  const hash = createHash("sha256");
  // One extra byte lets a small file's growth show up without a second full buffer.
  const chunk = Math.min(HASH_CHUNK_BYTES, size + 1);
  let cur = Buffer.allocUnsafe(chunk);
  let next = size + 1 > chunk ? Buffer.allocUnsafe(chunk) : cur;
  let total = 0;
  let pending = fh.read(cur, 0, chunk, null);
  try {
    for (;;) {
      const { bytesRead } = await pending;
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > size) throw new FileChanged("grew while it was being pinned");
      const filled = cur.subarray(0, bytesRead);
      if (next === cur) {
        hash.update(filled);
        pending = fh.read(cur, 0, chunk, null);
        continue;
      }
      pending = fh.read(next, 0, chunk, null); // overlaps the next read with hashing
      hash.update(filled);
      [cur, next] = [next, cur];
    }
  } finally {
    // Never close the handle under an in-flight read.
    await pending.catch(() => undefined);
  }
  if (total !== size) throw new FileChanged("shrank while it was being pinned");
  return hash.digest("hex");
}
