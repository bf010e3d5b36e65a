/**
 * The directory pin format.
 *
 * A directory's pin is the SHA-256 (lowercase hex) of this manifest, with one line per
 * retained entry, entries sorted by the UTF-8 bytes of their relative path:
 *
 * ```text
 * <relpath> NUL <kind> NUL <digest> LF
 * ```
 *
 * - `relpath`: POSIX path relative to the pinned directory, `/`-separated, UTF-8.
 * - `kind`: `f` for a regular file, `l` for a symlink.
 * - `digest`: 64 lowercase hex characters — SHA-256 of a file's bytes, or of a symlink's
 *   target string (as read by `readlink`, UTF-8; the target is never followed).
 *
 * Directories contribute no line; an empty directory (or one holding only empty
 * directories) pins to the SHA-256 of the empty string.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { sortByUtf8 } from "./utf8_order.ts";

/** Manifest text is hashed in pieces of about this many UTF-16 code units. */
const MANIFEST_PIECE = 64 * 1024;

/** One line of the manifest. */
export interface DigestLine {
  /** POSIX path relative to the pinned directory. */
  rel: string;
  /** `f` for a regular file, `l` for a symlink. */
  kind: "f" | "l";
  /** Lowercase hex SHA-256 of the file's bytes or of the symlink's target. */
  digest: string;
}

/**
 * SHA-256 of the manifest of `lines` (sorted here; input order does not matter).
 *
 * @example
 * ```ts
 * import { directoryDigest } from "./dir_digest.ts";
 * const d = directoryDigest([
 *   { rel: "a.txt", kind: "f", digest: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
 * ]);
 * console.log(d.length); // 64
 * ```
 */
export function directoryDigest(lines: readonly DigestLine[]): string {
  const sorted = sortByUtf8([...lines], (line) => line.rel);
  const hash = createHash("sha256");
  // One update per piece, not two per line: the same bytes (UTF-8 of the concatenation is
  // the concatenation of the UTF-8s, lines ending in LF), far fewer calls.
  let piece = "";
  for (const line of sorted) {
    piece += `${line.rel}\0${line.kind}\0${line.digest}\n`;
    if (piece.length >= MANIFEST_PIECE) {
      hash.update(piece, "utf8");
      piece = "";
    }
  }
  if (piece !== "") hash.update(piece, "utf8");
  return hash.digest("hex");
}

/**
 * SHA-256 (lowercase hex) of a symlink's target string.
 *
 * @example
 * ```ts
 * import { symlinkDigest } from "./dir_digest.ts";
 * symlinkDigest(new TextEncoder().encode("../bin/tool"));
 * ```
 */
export function symlinkDigest(target: Uint8Array): string {
  return createHash("sha256").update(target).digest("hex");
}
