/**
 * The read-only sandbox beneath one physical root directory. Every lookup goes one
 * component at a time through a pinned directory descriptor and never follows a symlink:
 *
 * - On Linux each directory is held open and its children are addressed as
 *   `/proc/self/fd/N/name`, so a lookup resolves inside that exact directory (the
 *   `openat` pattern, available to `node:fs`). A folder is opened with
 *   `O_DIRECTORY | O_NOFOLLOW` (a symlink or a non-folder fails to open) and its `fstat`
 *   checked; a file is opened `O_PATH | O_NOFOLLOW`, checked on that descriptor and only
 *   then opened for reading through it (open_at.ts). `readlink(/proc/self/fd/N)` must lie
 *   inside the root's realpath.
 * - Without `/proc` (e.g. macOS) the same checks run on physical paths: each component is
 *   `lstat`ed (a symlink is refused), then opened with `O_NOFOLLOW` (`O_NONBLOCK` for
 *   files so a FIFO never blocks), and `fstat` must show the same device and inode and the
 *   expected type. Intermediate components are then checked but not pinned, so a
 *   concurrent swap of a parent folder is detected only by the final `fstat` comparison.
 *
 * Error messages name only logical paths.
 *
 * @module
 */

import fs from "node:fs";
import { PathError } from "../errors/errors.ts";
import { lstatChecked, openChecked } from "./checked_open.ts";
import { closeQuietly } from "./close_quietly.ts";
import { type EntryKind, kindOfStats } from "./entry_kind.ts";
import { pathErrorFor } from "./errno.ts";
import { type ExactStats, identityKey, type ObjectIdentity } from "./exact_stat.ts";
import { openFolderAt, openRegularAt, regularOrThrow } from "./open_at.ts";
import { openRoot } from "./open_root.ts";
import { readDirEntries } from "./read_dir.ts";
import type { DirEntry, DirHandle, OpenedFile, SandboxOpenOptions } from "./sandbox_types.ts";
import { showPath } from "./show_path.ts";

export { closeQuietly } from "./close_quietly.ts";
export type { EntryKind } from "./entry_kind.ts";
export { procfsAvailable } from "./procfs_probe.ts";
export { TooManyEntriesError } from "./read_dir.ts";
export type {
  DirEntry,
  DirHandle,
  OpenedFile,
  PinnedRoot,
  SandboxOpenOptions,
} from "./sandbox_types.ts";

const C = fs.constants;
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;
const FILE_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK;

/** A read-only view of the tree beneath one physical directory. Close it when done. */
export class Sandbox {
  /** The pinned root directory. */
  readonly root: DirHandle;
  /** The root's realpath. */
  readonly real: string;
  /** Whether lookups go through `/proc/self/fd`. */
  readonly procfs: boolean;
  /** Identities (`dev:ino`) of folders/files that must never be entered or read. */
  #denied = new Set<string>();
  #sortKey?: (name: string) => string;

  private constructor(root: DirHandle, real: string, procfs: boolean) {
    this.root = root;
    this.real = real;
    this.procfs = procfs;
  }

  /**
   * Pin a physical directory as the sandbox root.
   *
   * @throws {PathError} when the directory cannot be opened.
   * @example
   * ```ts
   * import { Sandbox } from "./sandbox.ts";
   * const box = Sandbox.open("/tmp");
   * box.close();
   * ```
   */
  static open(physicalDir: string, logical = ".", opts: SandboxOpenOptions = {}): Sandbox {
    const { root, real, procfs } = openRoot(physicalDir, logical, opts);
    return new Sandbox(root, real, procfs);
  }

  /**
   * Order folder entries by `key(name)` instead of the name itself: with the protected
   * values' redaction as the key, where a name holding a value sorts among the others
   * tells nothing about the value.
   *
   * @example
   * ```ts
   * import { Sandbox } from "./sandbox.ts";
   * const box = Sandbox.open("/tmp");
   * box.sortBy((name) => name.toLowerCase());
   * box.close();
   * ```
   */
  sortBy(key: (name: string) => string): void {
    this.#sortKey = key;
  }

  /**
   * Refuse these physical objects (non-admitted Artifacts) wherever they are reached,
   * whatever name leads to them. Missing paths are ignored.
   *
   * @example
   * ```ts
   * import { Sandbox } from "./sandbox.ts";
   * const box = Sandbox.open("/tmp");
   * box.deny(["/tmp/private"]);
   * box.close();
   * ```
   */
  deny(physicalPaths: Iterable<string>): void {
    for (const p of physicalPaths) {
      const st = fs.lstatSync(p, { bigint: true, throwIfNoEntry: false });
      if (st) this.#denied.add(identityKey(st));
    }
  }

  /** Whether `st` is an object that must never be entered or read. */
  isDenied(st: ObjectIdentity): boolean {
    return this.#denied.size > 0 && this.#denied.has(identityKey(st));
  }

  /** Close the root descriptor. */
  close(): void {
    closeQuietly(this.root.fd);
  }

  /** Close a directory handle unless it is the root. */
  closeDir(h: DirHandle): void {
    if (h.fd !== this.root.fd) closeQuietly(h.fd);
  }

  /**
   * Throw unless the object behind `fd` lies inside the root (procfs only). `refusal`
   * finishes the message after the logical path (default "resolved outside its
   * Artifact; it was refused.").
   */
  confirmInside(
    fd: number,
    logical: string,
    refusal = "resolved outside its Artifact; it was refused.",
  ): void {
    if (!this.procfs) return;
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch (e) {
      throw pathErrorFor(e, logical);
    }
    const prefix = this.real === "/" ? "/" : `${this.real}/`;
    if (target !== this.real && !target.startsWith(prefix)) {
      throw new PathError(`${showPath(logical)} ${refusal}`);
    }
  }

  /**
   * Open a folder given as checked logical components (none = the root itself).
   *
   * @throws {PathError} for a missing component, a symlink, a non-folder or a swap.
   */
  openDir(components: readonly string[], logical: string): DirHandle {
    return this.walk(components, logical, "directory") as DirHandle;
  }

  /**
   * Open a regular file given as checked logical components.
   *
   * @throws {PathError} for a missing component, a symlink, a special file or a swap.
   */
  openFile(components: readonly string[], logical: string): OpenedFile {
    if (components.length === 0) {
      throw new PathError(`${showPath(logical)} is a folder, not a file.`);
    }
    return this.walk(components, logical, "file") as OpenedFile;
  }

  /** Look a path up without opening its last component: its kind, or null if missing. */
  kindOf(components: readonly string[], logical: string): EntryKind | null {
    if (components.length === 0) return "directory";
    const parentLogical = logical.includes("/") ? logical.slice(0, logical.lastIndexOf("/")) : ".";
    const parent = this.openDir(components.slice(0, -1), parentLogical);
    try {
      const st = fs.lstatSync(`${parent.base}/${components[components.length - 1]}`, {
        throwIfNoEntry: false,
      });
      return st ? kindOfStats(st) : null;
    } finally {
      this.closeDir(parent);
    }
  }

  private walk(
    comps: readonly string[],
    logical: string,
    want: "file" | "directory",
  ): DirHandle | OpenedFile {
    let cur = this.root;
    const parts = logical === "." ? [] : logical.split("/");
    const offset = Math.max(0, parts.length - comps.length);
    try {
      for (let i = 0; i < comps.length; i++) {
        const last = i === comps.length - 1;
        const shown = last ? logical : parts.slice(0, offset + i + 1).join("/");
        const p = `${cur.base}/${comps[i]}`;
        if (this.procfs) { // open_at.ts: each check on the opened object itself
          if (last && want === "file") {
            const file = openRegularAt(p, shown, this);
            this.closeDir(cur);
            return file;
          }
          const fd = openFolderAt(p, shown, this);
          this.closeDir(cur);
          cur = { fd, base: `/proc/self/fd/${fd}` };
          continue;
        }
        const st = lstatChecked(p, shown);
        if (this.isDenied(st)) {
          throw new PathError(
            `${showPath(shown)} belongs to an Artifact this eval does not admit.`,
          );
        }
        if (last && want === "file") {
          const file = this.openRegular(p, st, shown);
          this.closeDir(cur);
          return file;
        }
        if (!st.isDirectory()) {
          throw new PathError(`${showPath(shown)} is not a folder.`);
        }
        const fd = openChecked(p, DIR_FLAGS, st, shown, "directory", this.procfs);
        this.closeDir(cur);
        cur = { fd, base: this.procfs ? `/proc/self/fd/${fd}` : p };
      }
      if (cur.fd !== this.root.fd) this.confirmInside(cur.fd, logical);
      return cur;
    } catch (e) {
      this.closeDir(cur);
      throw e;
    }
  }

  private openRegular(p: string, st: ExactStats, shown: string): OpenedFile {
    regularOrThrow(st, shown);
    const fd = openChecked(p, FILE_FLAGS, st, shown, "file", this.procfs);
    try {
      this.confirmInside(fd, shown);
      return { fd, size: Number(st.size) };
    } catch (e) {
      closeQuietly(fd);
      throw e;
    }
  }

  /**
   * Open a child folder of an open folder (for traversals). Returns null when the entry
   * is no longer a real folder (a symlink or anything else swapped in).
   */
  childDir(parent: DirHandle, name: string): DirHandle | null {
    const p = `${parent.base}/${name}`;
    if (this.procfs) {
      let fd: number;
      try {
        fd = fs.openSync(p, DIR_FLAGS);
      } catch {
        return null;
      }
      if (this.#denied.size > 0 && this.fdDenied(fd)) return null;
      return { fd, base: `/proc/self/fd/${fd}` };
    }
    try {
      const st = fs.lstatSync(p, { bigint: true });
      if (!st.isDirectory() || this.isDenied(st)) return null;
      return { fd: openChecked(p, DIR_FLAGS, st, name, "directory", this.procfs), base: p };
    } catch {
      return null;
    }
  }

  /**
   * Open a child file of an open folder (for traversals) with `O_NOFOLLOW|O_NONBLOCK`.
   * Returns null when it cannot be opened (e.g. swapped for a symlink). With
   * `checkRegular` (default true) an `fstat` confirms it is a regular file; callers that
   * skip it must read with an explicit position (`pread`), which fails on FIFOs/sockets.
   */
  childFile(parent: DirHandle, name: string, checkRegular = true): number | null {
    let fd: number;
    try {
      fd = fs.openSync(`${parent.base}/${name}`, FILE_FLAGS);
    } catch {
      return null;
    }
    if (checkRegular || this.#denied.size > 0) {
      let ok = false;
      try {
        const st = fs.fstatSync(fd, { bigint: true });
        ok = st.isFile() && !this.isDenied(st);
      } catch { /* not regular */ }
      if (!ok) {
        closeQuietly(fd);
        return null;
      }
    }
    return fd;
  }

  /** True (and `fd` closed) when `fd` is a denied object. */
  private fdDenied(fd: number): boolean {
    try {
      if (!this.isDenied(fs.fstatSync(fd, { bigint: true }))) return false;
    } catch { /* treat as denied */ }
    closeQuietly(fd);
    return true;
  }

  /**
   * Read a folder's entries sorted by name. More than `maxEntries` entries is an error.
   * Under Node a folder whose size suggests very many entries is streamed, so it fails
   * after one entry too many; Deno's `node:fs` always reads a folder in full (its
   * `opendir` is not incremental), so there the count is checked after reading.
   *
   * @throws {TooManyEntriesError} when the folder has too many entries.
   * @throws {PathError} when it cannot be read.
   */
  readDir(h: DirHandle, logical: string, maxEntries: number): DirEntry[] {
    return readDirEntries(h, logical, maxEntries, this.#sortKey);
  }
}
