/**
 * Restoring owner permissions on a tree a tool left behind (a folder made unwritable or
 * unsearchable makes its removal fail), without ever changing anything outside it.
 *
 * `chmod` follows symlinks, so a name that was checked to be a folder and then swapped for
 * a symlink by a process still writing in the tree would hand the user's own folder (a
 * `~/.ssh`, a repository) to the change. On Linux every folder is therefore opened
 * `O_PATH | O_DIRECTORY | O_NOFOLLOW` first — a symlink or a non-folder fails to open, and
 * opening a folder by `O_PATH` needs no permission on it — and the change and the listing
 * go through `/proc/self/fd/N`, which reaches exactly the folder open on `N` whatever its
 * name leads to now. A child is looked up as `/proc/self/fd/N/name`: inside that very
 * folder, never through a path a swap could redirect.
 *
 * Without procfs (not Linux) the names are `lstat`ed and then changed by path, which a
 * concurrent swap can still redirect; toolhost's confinement and process tracking are
 * Linux-only too.
 *
 * @module
 */

import fs from "node:fs";
import { chmod, lstat, opendir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { procfsAvailable } from "./sandbox.ts";

const C = fs.constants;
/**
 * Linux's `O_PATH` (the same value on every architecture Linux runs Node or Deno on; not
 * in `fs.constants`).
 */
const O_PATH = 0o10000000;
const REF_FLAGS = O_PATH | C.O_DIRECTORY | C.O_NOFOLLOW;
const openFd = promisify(fs.open);
const closeFd = promisify(fs.close);

/** Most entries {@link unlockTree} visits by default. */
export const MAX_UNLOCK_ENTRIES = 100_000;
/**
 * Deepest folder {@link unlockTree} descends to: one descriptor is held per level, so the
 * walk never runs out of descriptors. A tree locked deeper stays locked (its removal then
 * fails and is reported).
 */
export const MAX_UNLOCK_DEPTH = 256;

/** Options of {@link unlockTree}. */
export interface UnlockOptions {
  /** The mode every folder gets. Default `0o700`. */
  mode?: number;
  /**
   * Entries left to visit, shared across calls (decremented in place). Default
   * `{ left: MAX_UNLOCK_ENTRIES }`.
   */
  budget?: { left: number };
}

interface Frame {
  fd: number;
  names: string[];
  next: number;
}

/**
 * Give every folder of the tree at `path` (itself included; a symlink is never followed,
 * not even at `path`) the owner mode `mode`, visiting at most `budget.left` entries and
 * {@link MAX_UNLOCK_DEPTH} levels. Never rejects: what cannot be changed is left as it is.
 *
 * @example
 * ```ts
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { unlockTree } from "./unlock_tree.ts";
 * const dir = mkdtempSync(join(tmpdir(), "unlock-"));
 * await unlockTree(dir);
 * rmSync(dir, { recursive: true });
 * ```
 */
export async function unlockTree(path: string, opts: UnlockOptions = {}): Promise<void> {
  const mode = opts.mode ?? 0o700;
  const budget = opts.budget ?? { left: MAX_UNLOCK_ENTRIES };
  if (!procfsAvailable()) return await unlockByPath(path, mode, budget);
  const stack: Frame[] = [];
  try {
    const root = await openRef(path);
    if (root === undefined) return;
    stack.push(await enter(root, mode, budget));
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.next >= top.names.length) {
        stack.pop();
        await closeFd(top.fd).catch(() => {});
        continue;
      }
      const name = top.names[top.next++];
      if (stack.length >= MAX_UNLOCK_DEPTH) continue;
      const child = await openRef(`/proc/self/fd/${top.fd}/${name}`);
      if (child !== undefined) stack.push(await enter(child, mode, budget));
    }
  } finally {
    for (const f of stack) await closeFd(f.fd).catch(() => {});
  }
}

/** An `O_PATH` descriptor of the folder at `p`, or undefined (a symlink, a file, gone). */
async function openRef(p: string): Promise<number | undefined> {
  try {
    return await openFd(p, REF_FLAGS);
  } catch {
    return undefined;
  }
}

/** Change the mode of the folder open on `fd` and list the folders in it (by type). */
async function enter(fd: number, mode: number, budget: { left: number }): Promise<Frame> {
  const frame: Frame = { fd, names: [], next: 0 };
  const self = `/proc/self/fd/${fd}`;
  await chmod(self, mode).catch(() => {});
  let dir;
  try {
    dir = await opendir(self);
  } catch {
    return frame;
  }
  try {
    for await (const entry of dir) {
      if (budget.left <= 0) break;
      budget.left--;
      // A type the file system does not report is tried: opening it refuses a non-folder.
      if (entry.isDirectory() || isUnknown(entry)) frame.names.push(entry.name);
    }
  } catch {
    // an unreadable remainder stays locked
  }
  return frame;
}

function isUnknown(entry: fs.Dirent): boolean {
  return !entry.isFile() && !entry.isSymbolicLink() && !entry.isFIFO() &&
    !entry.isSocket() && !entry.isBlockDevice() && !entry.isCharacterDevice();
}

/** Without procfs: `lstat` each name, then change it by path (see the module notes). */
async function unlockByPath(path: string, mode: number, budget: { left: number }) {
  const queue = [path];
  for (let i = 0; i < queue.length && budget.left > 0; i++) {
    const dir = queue[i];
    queue[i] = "";
    budget.left--;
    const st = await lstat(dir).catch(() => undefined);
    if (st === undefined || !st.isDirectory()) continue;
    await chmod(dir, mode).catch(() => {});
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.slice(0, Math.max(0, budget.left - (queue.length - i - 1)))) {
      queue.push(join(dir, name));
    }
  }
}
