/**
 * Editing `toolhost.toml` without rewriting it: a new manifest is created exclusively;
 * declarations are appended as text to an existing one (its comments and formatting stay
 * byte for byte), in its line-ending style. Each edit can be undone.
 *
 * @module
 */

import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  rmSync,
  type Stats,
  writeFileSync,
  writeSync,
} from "node:fs";
import { PathError } from "../errors/errors.ts";
import { openManifest, readOpenManifest } from "../workspace/manifest_bytes.ts";
import { existsError } from "./exists_error.ts";
import { errnoOf } from "../paths/errno.ts";

const MANIFEST = "toolhost.toml";

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** A value-free error for a failed manifest write (Node's own message names the path). */
function manifestError(path: string, e: unknown): PathError {
  if ((errnoOf(e) ?? "error") !== "EEXIST") {
    return new PathError(`could not write \`${MANIFEST}\` (${(errnoOf(e) ?? "error")})`);
  }
  if (!isSymlink(path)) return existsError(MANIFEST);
  return new PathError(
    `\`${MANIFEST}\` exists (a symlink, whose target is missing); toolhost init never overwrites or follows it: remove it or move it away`,
  );
}

/** An applied manifest edit. */
export interface ManifestEdit {
  /** Restore the manifest exactly as it was (remove it when the edit created it). */
  undo(): void;
}

/**
 * Create a manifest at `path`; fails rather than replace an existing file or follow a
 * symlink (even a dangling one), with a `PathError` naming only `toolhost.toml`.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { createManifest } from "./manifest_edit.ts";
 * const ws = mkdtempSync(join(tmpdir(), "ws-"));
 * const edit = createManifest(join(ws, "toolhost.toml"), "[artifacts.tools]\npath = \"tools\"\n");
 * edit.undo(); // removes it again
 * ```
 */
export function createManifest(path: string, text: string): ManifestEdit {
  try {
    writeFileSync(path, text, { flag: "wx", mode: 0o644 });
  } catch (e) {
    throw manifestError(path, e);
  }
  return { undo: () => rmSync(path, { force: true }) };
}

/**
 * Append `text` (LF line endings) to the manifest at `path`: after a newline when the
 * file does not end with one, and with CRLF line endings when the file uses them.
 * `undo()` truncates the file back to its original length. The manifest is opened
 * without following a symlink and must be a regular file of at most 8 MiB (else a
 * `DeclarationError` naming `toolhost.toml`).
 *
 * @example
 * ```ts
 * import { mkdtempSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { appendToManifest } from "./manifest_edit.ts";
 * const manifest = join(mkdtempSync(join(tmpdir(), "ws-")), "toolhost.toml");
 * writeFileSync(manifest, "[artifacts.tools]\npath = \"tools\"\n");
 * const edit = appendToManifest(manifest, "\n[artifacts.tools.evals.agent]\naudience = \"agent\"\n");
 * edit.undo();
 * ```
 */
export function appendToManifest(path: string, text: string): ManifestEdit {
  // Never through a symlink, and the descriptor checked is the one read and written.
  const { fd, size } = openManifest(path, constants.O_RDWR | constants.O_APPEND);
  try {
    const before = readOpenManifest(fd, size);
    const crlf = new TextDecoder().decode(before).includes("\r\n");
    const endsWithNewline = before.length === 0 || before[before.length - 1] === 0x0a;
    let added = endsWithNewline ? text : `\n${text}`;
    if (crlf) added = added.replace(/\r?\n/g, "\r\n");
    const identity = fstatSync(fd);
    try {
      const bytes = new TextEncoder().encode(added);
      for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off);
    } catch (e) {
      throw manifestError(path, e);
    }
    return { undo: () => truncateManifest(path, identity, before.length) };
  } finally {
    closeSync(fd);
  }
}

/**
 * Truncate the manifest back to `length`, when it is still the file that was appended to
 * (opened again without following a symlink; no size cap: the append may have crossed it).
 */
function truncateManifest(path: string, was: Stats, length: number): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    throw new PathError(`could not restore \`${MANIFEST}\` (${errnoOf(e) ?? "error"})`);
  }
  try {
    const now = fstatSync(fd);
    if (now.dev === was.dev && now.ino === was.ino) ftruncateSync(fd, length);
  } finally {
    closeSync(fd);
  }
}
