/**
 * Opening a sandbox's bind sources, checked on what was opened (bind_sources.ts says why a
 * symlink there is refused). Checking a path and then handing bwrap the path left a
 * window: anything that may write the workspace (another tool, a session, an agent's
 * file tools) could swap a checked folder for a symlink to `~/.ssh` or `/` after the
 * check and before bwrap's mount. So each source is opened once, and bwrap mounts the
 * descriptor (`--bind-fd`, lib/process/bind_fds.ts), which names that object whatever
 * happens to the path afterwards (bwrap confirms its mount is the descriptor's object,
 * or dies).
 *
 * A source strictly below a guarded path (the workspace, a writable path) is reached by
 * a walk from the outermost guarded path that holds it: that path is opened (a symlink
 * above it is its author's), then every component below `O_PATH | O_NOFOLLOW` through
 * `/proc/self/fd/N/name` of the folder before it, so the descriptor is that folder's
 * child by construction; a symlink anywhere on the way, the source itself included,
 * refuses the run. A source outside every guarded path, and the program and its
 * interpreter (resolved by their lookup and pinned), are opened as they resolve. A
 * missing source (or one below a file) is not bound (`-try`). Folders shared by several
 * sources are opened once per sandbox.
 *
 * @module
 */

import fs from "node:fs";
import { normalize } from "node:path";
import { ToolhostError } from "../errors/errors.ts";

const C = fs.constants;
/** Linux's `O_PATH` (not in `fs.constants`; the same value wherever Node or Deno run). */
const O_PATH = 0o10000000;
const REF_FLAGS = O_PATH | C.O_NOFOLLOW;
const DIR_REF_FLAGS = REF_FLAGS | C.O_DIRECTORY;

/**
 * The refusal of a run whose sandbox would bind or hide a path through a symlink.
 *
 * @example
 * ```ts
 * import { symlinkRefusal } from "./bind_open.ts";
 * symlinkRefusal().code; // "TOOL_ERROR"
 * ```
 */
export function symlinkRefusal(): ToolhostError {
  return new ToolhostError(
    "TOOL_ERROR",
    "The tool was refused: a path its sandbox binds runs through a symlink inside the workspace or a writable folder (a run may have left it there).",
  );
}

function isBelow(child: string, parent: string): boolean {
  return child !== parent && child.startsWith(parent.endsWith("/") ? parent : `${parent}/`);
}

function code(e: unknown): string | undefined {
  return (e as { code?: string }).code;
}

/** A missing name (or a file where a folder was expected): not bound, as `-try` had it. */
function missing(e: unknown): boolean {
  const c = code(e);
  return c === "ENOENT" || c === "ENOTDIR";
}

function closeAll(fds: Iterable<number | undefined>): void {
  for (const fd of fds) {
    if (fd === undefined) continue;
    try {
      fs.closeSync(fd);
    } catch { /* already closed */ }
  }
}

/** One sandbox's walks: the folders opened on the way, shared by its sources. */
class Walk {
  readonly #dirs = new Map<string, number | undefined>();

  /** A descriptor of the folder `path` (a guarded root, or below `root`), or undefined. */
  folder(path: string, root: string): number | undefined {
    if (this.#dirs.has(path)) return this.#dirs.get(path);
    let fd: number | undefined;
    if (path === root) fd = openOrMissing(path, O_PATH | C.O_DIRECTORY);
    else {
      const cut = path.lastIndexOf("/");
      const parent = this.folder(cut === 0 ? "/" : path.slice(0, cut), root);
      fd = parent === undefined ? undefined : childAt(parent, path.slice(cut + 1), true);
    }
    this.#dirs.set(path, fd);
    return fd;
  }

  close(): void {
    closeAll(this.#dirs.values());
    this.#dirs.clear();
  }
}

function openOrMissing(path: string, flags: number): number | undefined {
  try {
    return fs.openSync(path, flags);
  } catch (e) {
    if (missing(e)) return undefined;
    throw e;
  }
}

/**
 * The child `name` of the folder open on `dir`, opened without following it; a symlink
 * refuses the run, a missing one is undefined.
 */
function childAt(dir: number, name: string, folder: boolean): number | undefined {
  if (name === "" || name === "." || name === "..") throw symlinkRefusal();
  const at = `/proc/self/fd/${dir}/${name}`;
  let fd: number;
  try {
    fd = fs.openSync(at, folder ? DIR_REF_FLAGS : REF_FLAGS);
  } catch (e) {
    // O_DIRECTORY | O_NOFOLLOW fails alike for a symlink and a file: tell them apart.
    if (code(e) === "ENOTDIR" || code(e) === "ELOOP") {
      if (fs.lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) throw symlinkRefusal();
    }
    if (missing(e)) return undefined;
    throw e;
  }
  if (!folder && fs.fstatSync(fd).isSymbolicLink()) {
    closeAll([fd]);
    throw symlinkRefusal();
  }
  return fd;
}

/** The outermost of `guarded` that `path` lies strictly below, or undefined. */
function rootOf(path: string, guarded: readonly string[]): string | undefined {
  let root: string | undefined;
  for (const g of guarded) {
    if (isBelow(path, g) && (root === undefined || g.length < root.length)) root = g;
  }
  return root;
}

/** `path` normalized (`.`, `..` and doubled or trailing slashes resolved as text). */
function clean(path: string): string {
  const p = normalize(path);
  return p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p;
}

function openOne(walk: Walk, given: string, guarded: readonly string[], exempt: boolean) {
  const path = clean(given);
  const root = exempt ? undefined : rootOf(path, guarded);
  if (root === undefined) return openOrMissing(path, O_PATH);
  const cut = path.lastIndexOf("/");
  const parent = walk.folder(cut === 0 ? "/" : path.slice(0, cut), root);
  return parent === undefined ? undefined : childAt(parent, path.slice(cut + 1), false);
}

/**
 * Open each of `paths` (absolute, normalized) as the module documentation says: a
 * descriptor per path, undefined for a missing one. `guarded` are the normalized paths
 * below which no symlink is followed; `exempt` paths are opened as they resolve. Throws
 * {@linkcode symlinkRefusal} (every descriptor closed) when a path runs through a
 * symlink below a guarded path.
 *
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { openBindSources } from "./bind_open.ts";
 * const fds = openBindSources(["/tmp", "/nonexistent/x"], ["/nonexistent"]);
 * console.log(fds[1]); // undefined: not there, so not bound
 * for (const fd of fds) if (fd !== undefined) fs.closeSync(fd);
 * ```
 */
export function openBindSources(
  paths: readonly string[],
  guarded: readonly string[],
  exempt: ReadonlySet<string | undefined> = new Set(),
): (number | undefined)[] {
  const walk = new Walk();
  const out: (number | undefined)[] = [];
  const roots = guarded.map(clean);
  try {
    for (const p of paths) out.push(openOne(walk, p, roots, exempt.has(p)));
    return out;
  } catch (e) {
    closeAll(out);
    // Never the error's own text: it names the physical path.
    throw e instanceof ToolhostError ? e : new ToolhostError(
      "TOOL_ERROR",
      "The tool was refused: a path its sandbox binds could not be opened.",
    );
  } finally {
    walk.close();
  }
}
