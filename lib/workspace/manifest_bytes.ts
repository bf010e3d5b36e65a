/**
 * Reading `toolhost.toml`'s bytes without ever following a link or blocking: opened
 * non-blocking and with `O_NOFOLLOW`, then required (on the open descriptor, so what was
 * checked is what is read) to be a regular file of at most 8 MiB. A symlink, a FIFO, a
 * device or a folder at that name is a {@link DeclarationError} naming the file and what
 * to do, never a hang and never the link's target.
 *
 * @module
 */

import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { DeclarationError } from "../errors/errors.ts";
import { LIMITS } from "../results/types.ts";

/** The manifest file name. */
export const MANIFEST_NAME = "toolhost.toml";

// O_NONBLOCK: opening a FIFO with no writer returns at once; O_NOFOLLOW: a symlink fails
// (ELOOP, EMLINK on some BSDs). Both are 0 where the platform lacks them.
const NO_FOLLOW = (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * The message for a manifest that is a symlink: toolhost reads the workspace's own
 * file only, so a link (which a checkout, an archive or a tool may have planted) is
 * refused with what to do instead.
 *
 * @example
 * ```ts
 * import { MANIFEST_SYMLINK } from "./manifest_bytes.ts";
 * console.log(MANIFEST_SYMLINK);
 * ```
 */
export const MANIFEST_SYMLINK = "is a symlink, and toolhost never follows one to read its " +
  "manifest: replace the link with a regular file (copy the file it points to in its place)";

/** The typed error for a failed open of the manifest (value-free: no physical path). */
function openError(e: unknown): DeclarationError {
  const code = (e as { code?: unknown }).code;
  if (code === "ELOOP" || code === "EMLINK") {
    return new DeclarationError(MANIFEST_SYMLINK, { file: MANIFEST_NAME });
  }
  // Node's message names the physical path: report only the error code.
  return new DeclarationError(`cannot be read (${typeof code === "string" ? code : "error"})`, {
    file: MANIFEST_NAME,
  });
}

/**
 * Open the manifest at `path` without following a symlink, with `flags` (`O_RDONLY` or
 * `O_RDWR`, maybe `O_APPEND`), and check on the descriptor that it is a regular file of
 * at most 8 MiB. Returns the descriptor (the caller closes it) and its size.
 *
 * @example
 * ```ts
 * import { closeSync, constants, mkdtempSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { openManifest } from "./manifest_bytes.ts";
 * const path = join(mkdtempSync(join(tmpdir(), "ws-")), "toolhost.toml");
 * writeFileSync(path, "[artifacts]\n");
 * const { fd, size } = openManifest(path, constants.O_RDONLY);
 * closeSync(fd); // size === 12
 * ```
 */
export function openManifest(path: string, flags: number): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, flags | NO_FOLLOW);
  } catch (e) {
    throw openError(e);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new DeclarationError("must be a regular file", { file: MANIFEST_NAME });
    if (st.size > LIMITS.maxDeclarationBytes) {
      throw new DeclarationError(
        `is ${st.size} bytes; declarations are capped at 8 MiB (${LIMITS.maxDeclarationBytes})`,
        { file: MANIFEST_NAME },
      );
    }
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/**
 * Read up to `size` bytes of an open file from its start (fewer when it shrank meanwhile).
 *
 * @example
 * ```ts
 * import { closeSync, constants } from "node:fs";
 * import { openManifest, readOpenManifest } from "./manifest_bytes.ts";
 * const { fd, size } = openManifest("examples/toolhost.toml", constants.O_RDONLY);
 * const bytes = readOpenManifest(fd, size);
 * closeSync(fd);
 * ```
 */
export function readOpenManifest(fd: number, size: number): Uint8Array {
  const buf = new Uint8Array(size);
  let off = 0;
  while (off < buf.length) {
    const n = readSync(fd, buf, off, buf.length - off, off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}

/**
 * The bytes of the manifest at `path`: a regular file of at most 8 MiB reached without
 * following a symlink, else a {@link DeclarationError} naming `toolhost.toml`.
 *
 * @example
 * ```ts
 * import { readManifestBytes } from "./manifest_bytes.ts";
 * const bytes = readManifestBytes("examples/toolhost.toml"); // run from the repository root
 * ```
 */
export function readManifestBytes(path: string): Uint8Array {
  const { fd, size } = openManifest(path, constants.O_RDONLY);
  try {
    return readOpenManifest(fd, size);
  } finally {
    closeSync(fd);
  }
}
