/**
 * The undo log of one scaffold: the folders and files it created and its manifest edit,
 * so a failed scaffold leaves the workspace exactly as it found it. File-system errors
 * are reported with the workspace-relative path and the error code only.
 *
 * @module
 */

import {
  closeSync,
  existsSync,
  fchmodSync,
  mkdirSync,
  openSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, posix } from "node:path";
import { PathError } from "../errors/errors.ts";
import type { ManifestEdit } from "./manifest_edit.ts";
import { errnoOf } from "../paths/errno.ts";
import { existsError } from "./exists_error.ts";

/**
 * Creates folders and files below a root, remembering each, and undoes them.
 *
 * @example
 * ```ts
 * import { UndoLog } from "./undo_log.ts";
 * const log = new UndoLog("/tmp/ws");
 * log.writeFile("tools/greet.mjs", "#!/usr/bin/env node\n", 0o755);
 * log.rollback(); // removes the file, and tools/ and /tmp/ws if it created them
 * ```
 */
export class UndoLog {
  /** The root (absolute) that logical paths are relative to. */
  readonly root: string;
  #dirs: string[] = [];
  #files: string[] = [];
  #manifest: ManifestEdit | undefined;

  /** Start an empty log for `root`. */
  constructor(root: string) {
    this.root = root;
  }

  /** Create folder `rel` (`.` for the root) and its missing parents (the root's too). */
  makeDirs(rel: string): void {
    const what = rel === "" || rel === "." ? "the workspace folder" : `the folder \`${rel}\``;
    this.#mkdirs(join(this.root, rel), what);
  }

  #mkdirs(abs: string, label: string): void {
    if (existsSync(abs)) return;
    this.#mkdirs(dirname(abs), label);
    try {
      mkdirSync(abs);
    } catch (e) {
      throw new PathError(`could not create ${label} (${(errnoOf(e) ?? "error")})`);
    }
    this.#dirs.push(abs);
  }

  /** Create file `rel` with `text` and exactly `mode`; never replaces an existing file. */
  writeFile(rel: string, text: string, mode: number): void {
    this.makeDirs(posix.dirname(rel));
    const abs = join(this.root, rel);
    let fd: number;
    try {
      fd = openSync(abs, "wx", mode); // O_EXCL: never through a symlink, never replacing
    } catch (e) {
      if ((errnoOf(e) ?? "error") === "EEXIST") throw existsError(rel);
      throw new PathError(`could not create \`${rel}\` (${(errnoOf(e) ?? "error")})`);
    }
    this.#files.push(abs);
    try {
      // Exactly this mode whatever the umask, on the file just made (not on what its name
      // may lead to by now).
      fchmodSync(fd, mode);
      writeFileSync(fd, text);
    } catch (e) {
      throw new PathError(`could not write \`${rel}\` (${(errnoOf(e) ?? "error")})`);
    } finally {
      closeSync(fd);
    }
  }

  /** Remember a manifest edit (undone first on rollback). */
  recordManifest(edit: ManifestEdit): void {
    this.#manifest = edit;
  }

  /** Undo everything: the manifest edit, the files, then the folders that are empty. */
  rollback(): void {
    this.#manifest?.undo();
    for (const f of this.#files.reverse()) rmSync(f, { force: true });
    for (const d of this.#dirs.reverse()) {
      try {
        rmdirSync(d); // only while empty: never remove what someone else put there
      } catch {
        // not empty, or already gone
      }
    }
  }
}

export { existsError } from "./exists_error.ts";
