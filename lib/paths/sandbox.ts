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
import process from "node:process";
import { PathError } from "../errors/errors.ts";
import { errnoOf, pathErrorFor } from "./errno.ts";
import { showPath } from "./show_path.ts";
import { type ExactStats, fstatExact, identityKey, lstatExact, sameObject } from "./exact_stat.ts";
import { openFolderAt, openRegularAt, regularOrThrow } from "./open_at.ts";

const C = fs.constants;
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;
/**
 * The root path is trusted configuration and may lead through symlinks — unless the
 * caller says it is a realpath ({@link SandboxOpenOptions.exact}).
 */
const ROOT_FLAGS = C.O_RDONLY | C.O_DIRECTORY;
const FILE_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK;

/** Options of {@link Sandbox.open}. */
export interface SandboxOpenOptions {
  /**
   * The path is a realpath that must still name the opened folder: no component may
   * have become a symlink or been moved since it was declared (an Artifact folder
   * swapped for a link to elsewhere). Checked after the open — by `/proc/self/fd` on
   * Linux, by realpath and identity elsewhere. Default false.
   */
  exact?: boolean;
  /**
   * A root already opened and checked exactly as `exact` opens it (`pinRoot`): when
   * it is for this path and not yet taken, the sandbox takes it (and closes it) instead
   * of opening the folder again. Default none.
   */
  pinned?: PinnedRoot;
}

/** A folder opened and checked as an exact sandbox root, not yet given to a sandbox. */
export interface PinnedRoot {
  /** The realpath it was opened by and found at. */
  readonly path: string;
  /** The descriptor; -1 once a sandbox took it or it was released. */
  fd: number;
}

/** What a directory entry is, without following it. */
export type EntryKind = "file" | "directory" | "symlink" | "other";

/** An open directory inside the sandbox. */
export interface DirHandle {
  /** The descriptor. */
  fd: number;
  /** Prefix addressing its children: `/proc/self/fd/N` or, without procfs, its path. */
  base: string;
}

/** An open regular file inside the sandbox. */
export interface OpenedFile {
  /** The descriptor (the caller closes it with `fs.closeSync`). */
  fd: number;
  /** Size in bytes at open time. */
  size: number;
}

/** One directory entry. */
export interface DirEntry {
  /** Entry name. */
  name: string;
  /** Entry kind (symlinks are reported, never followed). */
  kind: EntryKind;
}

/** Folders larger than this (st_size) are streamed where `opendir` is incremental. */
const HUGE_DIR_BYTES = 256 * 1024;
/** Deno's `node:fs` opendir reads a whole folder at once; Node's streams it. */
const STREAMING_DIRS = !("deno" in process.versions);

let procfsState: boolean | undefined;

/**
 * Whether `/proc/self/fd` shows what a descriptor is, probed once on `/` (never on a
 * caller's path, which a swap could make disagree and so switch the checks off).
 *
 * @example
 * ```ts
 * import { procfsAvailable } from "./sandbox.ts";
 * console.log(procfsAvailable()); // true on Linux
 * ```
 */
export function procfsAvailable(): boolean {
  if (procfsState === undefined) {
    try {
      const fd = fs.openSync("/", ROOT_FLAGS);
      try {
        procfsState = fs.readlinkSync(`/proc/self/fd/${fd}`) === "/";
      } finally {
        closeQuietly(fd);
      }
    } catch {
      procfsState = false;
    }
  }
  return procfsState;
}

/**
 * The root's physical path without procfs: its realpath — or, with `exact`, null when that
 * name no longer leads to the opened folder itself (same device and inode).
 */
function realWithoutProcfs(fd: number, physicalDir: string, exact: boolean): string | null {
  const real = fs.realpathSync(physicalDir);
  if (!exact) return real;
  const named = fs.statSync(real, { bigint: true });
  const opened = fs.fstatSync(fd, { bigint: true });
  return named.dev === opened.dev && named.ino === opened.ino ? real : null;
}

/** The error of a root that no longer is where it was declared. */
function movedRoot(logical: string): PathError {
  return new PathError(
    `${showPath(logical)} was refused: its Artifact folder no longer is where the workspace ` +
      "declared it (moved, or it or a parent replaced, e.g. by a symlink); restore it and retry.",
  );
}

function kindOfStats(st: fs.Stats | fs.BigIntStats | fs.Dirent): EntryKind {
  if (st.isFile()) return "file";
  if (st.isDirectory()) return "directory";
  if (st.isSymbolicLink()) return "symlink";
  return "other";
}

/**
 * Close a descriptor, ignoring one already closed.
 *
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { closeQuietly } from "./sandbox.ts";
 * closeQuietly(fs.openSync("/tmp", "r"));
 * ```
 */
export function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch { /* already closed */ }
}

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
    const pin = opts.pinned;
    if (opts.exact && pin !== undefined && pin.fd >= 0 && pin.path === physicalDir) {
      const fd = pin.fd;
      pin.fd = -1; // the sandbox owns it now
      return new Sandbox({ fd, base: `/proc/self/fd/${fd}` }, physicalDir, true);
    }
    let fd: number;
    try {
      fd = fs.openSync(physicalDir, opts.exact ? ROOT_FLAGS | C.O_NOFOLLOW : ROOT_FLAGS);
    } catch (e) {
      const swapped = opts.exact && (errnoOf(e) === "ELOOP" || errnoOf(e) === "ENOTDIR");
      throw swapped ? movedRoot(logical) : pathErrorFor(e, logical);
    }
    let real: string;
    try {
      const found = procfsAvailable()
        ? fs.readlinkSync(`/proc/self/fd/${fd}`) // what was opened, whatever the name now says
        : realWithoutProcfs(fd, physicalDir, opts.exact === true);
      if (found === null || (opts.exact && found !== physicalDir)) throw movedRoot(logical);
      real = found;
    } catch (e) {
      closeQuietly(fd);
      throw e instanceof PathError ? e : pathErrorFor(e, logical);
    }
    const procfs = procfsAvailable();
    return new Sandbox({ fd, base: procfs ? `/proc/self/fd/${fd}` : real }, real, procfs);
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
  isDenied(st: ExactStats): boolean {
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
        const st = this.lstatChecked(p, shown);
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
        const fd = this.openChecked(p, DIR_FLAGS, st, shown, "directory");
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

  private lstatChecked(p: string, shown: string): ExactStats {
    let st: ExactStats | undefined;
    try {
      st = lstatExact(p);
    } catch (e) {
      throw pathErrorFor(e, shown);
    }
    if (!st) throw new PathError(`${showPath(shown)} does not exist.`);
    if (st.isSymbolicLink()) {
      throw new PathError(`${showPath(shown)} is a symlink; built-in tools never follow symlinks.`);
    }
    return st;
  }

  private openRegular(p: string, st: ExactStats, shown: string): OpenedFile {
    regularOrThrow(st, shown);
    const fd = this.openChecked(p, FILE_FLAGS, st, shown, "file");
    try {
      this.confirmInside(fd, shown);
      return { fd, size: Number(st.size) };
    } catch (e) {
      closeQuietly(fd);
      throw e;
    }
  }

  private openChecked(
    p: string,
    flags: number,
    st: ExactStats,
    shown: string,
    kind: "file" | "directory",
  ): number {
    let fd: number;
    try {
      fd = fs.openSync(p, flags);
    } catch (e) {
      throw pathErrorFor(e, shown);
    }
    let ok = false;
    try {
      const f = fstatExact(fd, this.procfs);
      ok = sameObject(f, st) && kindOfStats(f) === kind;
    } catch { /* treated as changed */ }
    if (!ok) {
      closeQuietly(fd);
      throw new PathError(`${showPath(shown)} changed while it was being opened; try again.`);
    }
    return fd;
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
      return { fd: this.openChecked(p, DIR_FLAGS, st, name, "directory"), base: p };
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
    const out: DirEntry[] = [];
    try {
      if (STREAMING_DIRS && fs.fstatSync(h.fd).size > HUGE_DIR_BYTES) {
        const dir = fs.opendirSync(h.base);
        try {
          for (let e = dir.readSync(); e !== null; e = dir.readSync()) {
            if (out.length === maxEntries) throw tooMany(logical, maxEntries);
            out.push({ name: e.name, kind: kindOfStats(e) });
          }
        } finally {
          dir.closeSync();
        }
      } else {
        for (const e of fs.readdirSync(h.base, { withFileTypes: true })) {
          out.push({ name: e.name, kind: kindOfStats(e) });
        }
        if (out.length > maxEntries) throw tooMany(logical, maxEntries);
      }
    } catch (e) {
      if (e instanceof PathError) throw e;
      throw pathErrorFor(e, logical);
    }
    const key = this.#sortKey;
    if (key === undefined) {
      out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return out;
    }
    const keyed = out.map((e) => [key(e.name), e] as const);
    keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return keyed.map(([, e]) => e);
  }
}

/**
 * A folder holds more entries than a traversal allows (an error, not a truncation).
 *
 * @example
 * ```ts
 * import { TooManyEntriesError } from "./sandbox.ts";
 * const e = new TooManyEntriesError("The folder `big` has more than 10,000 entries.");
 * console.log(e.code); // "PATH_ERROR"
 * ```
 */
export class TooManyEntriesError extends PathError {}

function tooMany(logical: string, max: number): PathError {
  return new TooManyEntriesError(
    `The folder ${showPath(logical)} has more than ${max.toLocaleString("en-US")} entries; ` +
      "name a smaller folder.",
  );
}
