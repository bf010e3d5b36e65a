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

import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";

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
  const keyed = lines.map((line) => ({ line, key: Buffer.from(line.rel, "utf8") }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  const hash = createHash("sha256");
  for (const { line, key } of keyed) {
    hash.update(key);
    hash.update(`\0${line.kind}\0${line.digest}\n`, "utf8");
  }
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
