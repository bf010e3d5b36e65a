/**
 * Removing a tree a tool wrote (a call's private directories, a session's, an artifact
 * store), whatever its shape: never following a symlink, never recursing on the native
 * stack, with a bounded number of descriptors and bounded memory.
 *
 * `fs.rm(path, { recursive: true })` under Deno is Rust's `remove_dir_all`, which recurses
 * once per level on a runtime thread's stack: a tree nested some 10,000 folders deep — one
 * shell loop of `mkdir a; cd a` in a tool's TMPDIR, or a folder planted in a cloned
 * repository's `.toolhost/state` — overflowed that stack and aborted the whole toolhost
 * process (`serve` included, and again at every start, as its sweep met the same tree).
 *
 * Here the walk is a loop over an explicit stack of at most {@link MAX_REMOVE_DEPTH}
 * folders. Each is opened `O_PATH | O_DIRECTORY | O_NOFOLLOW` (a symlink or a file fails to
 * open and is unlinked instead, which never follows it), given owner permissions (a tool
 * may have locked it), listed a batch at a time and emptied through `/proc/self/fd/N/name`,
 * which stays inside that very folder whatever its name leads to now. A folder deeper than
 * the stack is moved up into the tree's top folder (one `rename` in the same tree) and
 * removed from there, so any depth is removed with the same stack. At most `maxEntries`
 * entries are removed (then it rejects: the caller keeps and reports what is left), and
 * the event loop is given back every few hundred steps.
 *
 * Without procfs (not Linux) it falls back to `fs.rm`; toolhost's process tracking and
 * confinement are Linux-only too.
 *
 * @module
 */

import fs from "node:fs";
import { rm } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { setImmediate } from "node:timers";
import { CleanupFailed } from "../errors/errors.ts";
import { closeQuietly } from "./close_quietly.ts";
import { errnoOf } from "./errno.ts";
import { procfsAvailable } from "./procfs_probe.ts";

/** Linux's `O_PATH` (not in `fs.constants`; the same value wherever Node or Deno run). */
const O_PATH = 0o10000000;
const C = fs.constants;
const REF_FLAGS = O_PATH | C.O_DIRECTORY | C.O_NOFOLLOW;

/**
 * Most folders open at once while removing; deeper ones are moved up first.
 *
 * @example
 * ```ts
 * import { MAX_REMOVE_DEPTH } from "./remove_tree.ts";
 * MAX_REMOVE_DEPTH; // 64
 * ```
 */
export const MAX_REMOVE_DEPTH = 64;

/**
 * Default entry budget of one removal.
 *
 * @example
 * ```ts
 * import { MAX_REMOVE_ENTRIES } from "./remove_tree.ts";
 * MAX_REMOVE_ENTRIES; // 1000000
 * ```
 */
export const MAX_REMOVE_ENTRIES = 1_000_000;

/**
 * Default time budget of one removal, in milliseconds (a tree on a slow or hung disk must
 * not hold a sweep, a call's end or an exit for ever).
 *
 * @example
 * ```ts
 * import { MAX_REMOVE_MS } from "./remove_tree.ts";
 * MAX_REMOVE_MS; // 60000
 * ```
 */
export const MAX_REMOVE_MS = 60_000;

/** Steps between two looks at the clock. */
const STEPS_PER_CLOCK = 64;

/** Steps between two turns given back to the event loop. */
const STEPS_PER_TURN = 256;

/** Options of {@link removeTreeNoFollow}. */
export interface RemoveOptions {
  /** Most entries removed. Default {@link MAX_REMOVE_ENTRIES}. */
  maxEntries?: number;
  /** Longest the removal may take, ms (event-loop turns included). Default {@link MAX_REMOVE_MS}. */
  maxMs?: number;
}

interface Frame {
  fd: number;
  /** Where it is removed from: its parent's descriptor and its name there; none for the top. */
  parent?: { fd: number; name: string };
}

/** Step and entry accounting of one removal. */
class Budget {
  steps = 0;
  #counted = 0;
  readonly #deadline: number;
  constructor(public left: number, maxMs: number) {
    this.#deadline = performance.now() + maxMs;
  }
  /** Count one step; throws once the entry or time budget is spent. */
  spend(): void {
    this.steps++;
    if (--this.left < 0) {
      throw new CleanupFailed(
        "A directory tree is too large to remove in one go; remove it by hand.",
      );
    }
    if (this.#counted++ % STEPS_PER_CLOCK === 0 && performance.now() > this.#deadline) {
      throw new CleanupFailed(
        "A directory tree took too long to remove (the disk may be slow or hung); " +
          "remove it by hand.",
      );
    }
  }
  /** Resolves after giving the event loop a turn, every few hundred steps. */
  async pace(): Promise<void> {
    if (this.steps >= STEPS_PER_TURN) {
      this.steps = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

/**
 * Remove the tree at `path` (a folder, a file or a symlink; the link itself, never what it
 * names). Resolves when nothing is left at `path` (also when nothing was there); rejects
 * with {@link CleanupFailed} (no path in the message) when something cannot be removed or
 * the entry budget is spent.
 *
 * @example
 * ```ts
 * import { mkdirSync, mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { removeTreeNoFollow } from "./remove_tree.ts";
 * const dir = mkdtempSync(join(tmpdir(), "remove-tree-"));
 * mkdirSync(join(dir, "a", "b"), { recursive: true });
 * await removeTreeNoFollow(dir);
 * ```
 */
export async function removeTreeNoFollow(path: string, opts: RemoveOptions = {}): Promise<void> {
  if (!procfsAvailable()) {
    await rm(path, { recursive: true, force: true, maxRetries: 2 });
    return;
  }
  const walk = Removal.start(path, opts);
  if (walk === undefined) return;
  while (walk.step()) await walk.budget.pace();
}

/**
 * {@link removeTreeNoFollow}, synchronously (for exit-time cleanup, where no event loop
 * turn comes): throws where that rejects.
 *
 * @example
 * ```ts
 * import { mkdirSync, mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { removeTreeNoFollowSync } from "./remove_tree.ts";
 * const dir = mkdtempSync(join(tmpdir(), "remove-tree-"));
 * mkdirSync(join(dir, "a", "b"), { recursive: true });
 * removeTreeNoFollowSync(dir);
 * ```
 */
export function removeTreeNoFollowSync(path: string, opts: RemoveOptions = {}): void {
  if (!procfsAvailable()) {
    fs.rmSync(path, { recursive: true, force: true, maxRetries: 2 });
    return;
  }
  const walk = Removal.start(path, opts);
  if (walk === undefined) return;
  while (walk.step());
}

/** One removal's walk: an explicit stack of open folders, advanced a step at a time. */
class Removal {
  readonly #stack: Frame[];
  readonly #hoisted = `.rm-${randomBytes(6).toString("hex")}-`;
  #moved = 0;

  private constructor(
    readonly path: string,
    readonly top: number,
    readonly budget: Budget,
  ) {
    this.#stack = [{ fd: top }];
  }

  /** The walk of `path`, or undefined when nothing is left to walk (a link, a file, gone). */
  static start(path: string, opts: RemoveOptions): Removal | undefined {
    const top = wrap(() => openRef(path));
    if (top === "gone") return undefined;
    if (top === "not-folder") return unlinkQuietly(path);
    const budget = new Budget(opts.maxEntries ?? MAX_REMOVE_ENTRIES, opts.maxMs ?? MAX_REMOVE_MS);
    return new Removal(path, top, budget);
  }

  /** One step; false once the tree is removed. Throws `CleanupFailed` (all closed then). */
  step(): boolean {
    try {
      this.#advance();
      return this.#stack.length > 0;
    } catch (e) {
      for (const f of this.#stack.splice(0)) closeQuietly(f.fd);
      if (e instanceof CleanupFailed) throw e;
      throw cannotRemove();
    }
  }

  #advance(): void {
    const stack = this.#stack;
    const frame = stack[stack.length - 1];
    const sub = emptyUntilFolder(frame.fd, this.budget);
    if (sub === null) {
      removeFolder(frame, this.path);
      stack.pop();
      fs.closeSync(frame.fd);
      return;
    }
    const child = `/proc/self/fd/${frame.fd}/${sub}`;
    this.budget.spend();
    if (stack.length >= MAX_REMOVE_DEPTH) {
      // Too deep to open: move it up into the top folder, removed from there later.
      fs.renameSync(child, `/proc/self/fd/${this.top}/${this.#hoisted}${this.#moved++}`);
      return;
    }
    const fd = openRef(child);
    if (fd === "not-folder") unlinkQuietly(child);
    else if (fd !== "gone") stack.push({ fd, parent: { fd: frame.fd, name: sub } });
  }
}

function cannotRemove(): CleanupFailed {
  return new CleanupFailed("A directory tree could not be removed; check its permissions.");
}

/** `f()`, its failures as `CleanupFailed`. */
function wrap<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof CleanupFailed) throw e;
    throw cannotRemove();
  }
}

/** An `O_PATH` descriptor of the folder at `p` given owner permissions, or what it is. */
function openRef(p: string): number | "gone" | "not-folder" {
  let fd;
  try {
    fd = fs.openSync(p, REF_FLAGS);
  } catch (e) {
    const code = errnoOf(e);
    if (code === "ENOENT") return "gone";
    if (code === "ELOOP" || code === "ENOTDIR") return "not-folder";
    throw e;
  }
  try {
    fs.chmodSync(`/proc/self/fd/${fd}`, 0o700); // a tool may have locked it
  } catch {
    // not ours to change: its removal reports what it cannot do
  }
  return fd;
}

/**
 * Unlink every entry of the folder open on `fd` that is not a folder, up to the first
 * folder found: its name, or null once the folder is empty.
 */
function emptyUntilFolder(fd: number, budget: Budget): string | null {
  const self = `/proc/self/fd/${fd}`;
  const dir = fs.opendirSync(self, { bufferSize: 64 });
  try {
    for (let e = dir.readSync(); e !== null; e = dir.readSync()) {
      if (e.isDirectory()) return e.name;
      budget.spend();
      try {
        fs.unlinkSync(`${self}/${e.name}`); // never follows a symlink
      } catch (err) {
        const code = errnoOf(err);
        if (code === "EISDIR" || code === "EPERM") return e.name; // a folder of unknown type
        if (code !== "ENOENT") throw err;
      }
    }
    return null;
  } finally {
    dir.closeSync();
  }
}

/** `rmdir` an emptied folder: through its parent's descriptor, or `path` for the top. */
function removeFolder(frame: Frame, path: string): void {
  try {
    if (frame.parent === undefined) fs.rmdirSync(path);
    else fs.rmdirSync(`/proc/self/fd/${frame.parent.fd}/${frame.parent.name}`);
  } catch (e) {
    if (errnoOf(e) !== "ENOENT") throw e; // another remover was first
  }
}

function unlinkQuietly(p: string): undefined {
  try {
    fs.unlinkSync(p);
  } catch (e) {
    if (errnoOf(e) !== "ENOENT") throw cannotRemove();
  }
}
