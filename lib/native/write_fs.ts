/**
 * Safe writes beneath the logical-path sandbox. Every folder on the way is entered
 * through its pinned parent descriptor with `O_NOFOLLOW|O_DIRECTORY` (missing ones are
 * created there with `mkdir`, which never follows a link), so no write ever follows a
 * symlink in any component. New content goes to a temporary file created with
 * `O_CREAT|O_EXCL|O_NOFOLLOW` in the same verified folder and is renamed over the target
 * (atomic; a symlink at the target is replaced, never written through). A file Artifact's
 * own file is rewritten in place, so nothing is ever created outside the Artifact.
 *
 * Refused outright: any path through git's control folder (`.git`, see git_path.ts); the
 * workspace's `toolhost.toml` and `toolhost.lock` (anchor_path.ts); an
 * existing file that is another name (hard link) of an Artifact the eval does not admit,
 * found by identity like the read tools do; and any existing file with more than one
 * hard link, since writing it would change, or silently detach, the same file under its
 * other names — possibly outside the workspace. Errors name logical paths only.
 *
 * @module
 */

import fs from "node:fs";
import { randomBytes } from "node:crypto";
import { PathError } from "../errors/errors.ts";
import { pathErrorFor } from "../paths/errno.ts";
import type { ResolvedPath } from "../paths/resolve.ts";
import type { DirHandle, Sandbox } from "../paths/sandbox.ts";
import { currentId, refuseLinked } from "./write_current.ts";
import type { WriteTarget } from "./write_target.ts";
import { refuseGitControlPath } from "./git_path.ts";
import { refuseTrustAnchor } from "./anchor_path.ts";
import { showPath } from "../paths/show_path.ts";

const C = fs.constants;

export type { CurrentFile, WriteTarget } from "./write_target.ts";
export { currentId, readCurrent, refuseLinked } from "./write_current.ts";

function siblingLogical(logical: string, depth: number): string {
  const parts = logical.split("/");
  return parts.slice(0, parts.length - depth).join("/") || ".";
}

const MOVED_OUTSIDE = "moved outside its Artifact; the write was refused.";

function enterChild(
  box: Sandbox,
  cur: DirHandle,
  name: string,
  shown: string,
  create: boolean,
  t: WriteTarget,
): DirHandle {
  const child = box.childDir(cur, name);
  if (child !== null) return child;
  const st = fs.lstatSync(`${cur.base}/${name}`, { throwIfNoEntry: false });
  if (st?.isSymbolicLink()) {
    throw new PathError(`${showPath(shown)} is a symlink; native tools never follow symlinks.`);
  }
  if (st && !st.isDirectory()) throw new PathError(`${showPath(shown)} is not a folder.`);
  if (st) {
    throw new PathError(
      `${
        showPath(shown)
      } cannot be entered: it belongs to an Artifact this eval does not admit, or it changed.`,
    );
  }
  if (!create) throw new PathError(`The folder ${showPath(shown)} does not exist.`);
  try {
    fs.mkdirSync(`${cur.base}/${name}`, { mode: 0o755 });
  } catch (e) {
    throw pathErrorFor(e, shown);
  }
  t.created.push({ base: cur.base, name });
  const made = box.childDir(cur, name);
  if (made === null) {
    throw new PathError(`${showPath(shown)} changed while it was being created; try again.`);
  }
  return made;
}

/**
 * Open the parent folder of a resolved path for writing, creating missing folders when
 * `createParents`. The caller closes it with {@link closeTarget}.
 *
 * @throws {PathError} for symlinks, non-folders, refused Artifacts, a missing parent, or
 * a path through git's control folder (`.git`), or the workspace's `toolhost.toml` or
 * `toolhost.lock` (anchor_path.ts) when `workspaceRoot` holds them.
 * @example
 * ```ts
 * import { openWriteTarget } from "./write_fs.ts";
 * // const t = openWriteTarget(box, resolved, true, env.workspace.root);
 * ```
 */
export function openWriteTarget(
  box: Sandbox,
  r: ResolvedPath,
  createParents: boolean,
  workspaceRoot: string,
): WriteTarget {
  const comps = r.components;
  refuseGitControlPath(r.path, r.fileOnly === undefined ? comps : [...comps, r.fileOnly]);
  if (comps.length === 0) throw new PathError(`${showPath(r.path)} is a folder, not a file.`);
  const t: WriteTarget = {
    box,
    dir: box.root,
    name: comps[comps.length - 1],
    logical: r.path,
    inPlace: r.fileOnly !== undefined,
    created: [],
  };
  let cur = box.root;
  try {
    for (let i = 0; i < comps.length - 1; i++) {
      const shown = siblingLogical(r.path, comps.length - 1 - i);
      const next = enterChild(box, cur, comps[i], shown, createParents, t);
      box.closeDir(cur);
      cur = next;
    }
    if (cur.fd !== box.root.fd) box.confirmInside(cur.fd, r.path, MOVED_OUTSIDE);
    refuseTrustAnchor(cur, t.name, r.path, workspaceRoot);
  } catch (e) {
    box.closeDir(cur);
    removeCreated(t);
    throw e;
  }
  t.dir = cur;
  return t;
}

/**
 * Close a target's folder (not the sandbox).
 *
 * @example
 * ```ts
 * import { closeTarget } from "./write_fs.ts";
 * // closeTarget(t);
 * ```
 */
export function closeTarget(t: WriteTarget): void {
  t.box.closeDir(t.dir);
}

/**
 * Remove the folders a target created (innermost first), ignoring non-empty ones.
 *
 * @example
 * ```ts
 * import { removeCreated } from "./write_fs.ts";
 * // removeCreated(t); // after a failed transaction
 * ```
 */
export function removeCreated(t: WriteTarget): void {
  for (const c of [...t.created].reverse()) {
    try {
      fs.rmdirSync(`${c.base}/${c.name}`);
    } catch { /* not empty or gone */ }
  }
  t.created = [];
}

/** Message end for a file that has other names (hard links). */
function writeAll(fd: number, bytes: Uint8Array): void {
  let at = 0;
  while (at < bytes.length) at += fs.writeSync(fd, bytes, at, bytes.length - at);
}

/**
 * Write `bytes` to a new temporary file in the target's folder (`O_EXCL|O_NOFOLLOW`,
 * mode `mode`); returns its name. Nothing is visible under the target's name yet.
 *
 * @example
 * ```ts
 * import { stageTemp } from "./write_fs.ts";
 * // const tmp = stageTemp(t, bytes, 0o644);
 * ```
 */
export function stageTemp(t: WriteTarget, bytes: Uint8Array, mode: number): string {
  const tmp = `.toolhost-${randomBytes(8).toString("hex")}.tmp`;
  let fd: number;
  try {
    fd = fs.openSync(
      `${t.dir.base}/${tmp}`,
      C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW,
      0o600,
    );
  } catch (e) {
    throw pathErrorFor(e, t.logical);
  }
  try {
    writeAll(fd, bytes);
    fs.fchmodSync(fd, mode);
  } catch (e) {
    fs.closeSync(fd);
    discardTemp(t, tmp);
    throw pathErrorFor(e, t.logical);
  }
  fs.closeSync(fd);
  return tmp;
}

/**
 * Remove a staged temporary file (best effort).
 *
 * @example
 * ```ts
 * import { discardTemp } from "./write_fs.ts";
 * // discardTemp(t, tmp);
 * ```
 */
export function discardTemp(t: WriteTarget, tmp: string): void {
  try {
    fs.unlinkSync(`${t.dir.base}/${tmp}`);
  } catch { /* gone */ }
}

/**
 * Rename entry `from` to `to` within the target's folder, after re-confirming the folder
 * is still inside the Artifact.
 *
 * @example
 * ```ts
 * import { renameIn } from "./write_fs.ts";
 * // renameIn(t, tmp, t.name);
 * ```
 */
export function renameIn(t: WriteTarget, from: string, to: string): void {
  if (t.dir.fd !== t.box.root.fd) t.box.confirmInside(t.dir.fd, t.logical, MOVED_OUTSIDE);
  try {
    fs.renameSync(`${t.dir.base}/${from}`, `${t.dir.base}/${to}`);
  } catch (e) {
    throw pathErrorFor(e, t.logical);
  }
}

/**
 * Rewrite the target's existing regular file in place (file Artifacts): opened with
 * `O_NOFOLLOW`, checked to be the same file as `expectId`, truncated and written.
 *
 * @example
 * ```ts
 * import { rewriteInPlace } from "./write_fs.ts";
 * // rewriteInPlace(t, bytes, cur.id);
 * ```
 */
export function rewriteInPlace(t: WriteTarget, bytes: Uint8Array, expectId: string): void {
  let fd: number;
  try {
    fd = fs.openSync(`${t.dir.base}/${t.name}`, C.O_WRONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
  } catch (e) {
    throw pathErrorFor(e, t.logical);
  }
  try {
    const f = fs.fstatSync(fd, { bigint: true });
    if (!f.isFile() || `${f.dev}:${f.ino}` !== expectId) {
      throw new PathError(`${showPath(t.logical)} changed while it was being written; try again.`);
    }
    refuseLinked(f, t.logical);
    fs.ftruncateSync(fd, 0);
    writeAll(fd, bytes);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Replace the target's content with `bytes` — atomically by rename in a folder Artifact,
 * in place for a file Artifact. `expectId` (from {@link readCurrent}) guards against a
 * swap since it was read; `null` means the file must still not exist.
 *
 * @example
 * ```ts
 * import { replaceContent } from "./write_fs.ts";
 * // replaceContent(t, new TextEncoder().encode("hi\n"), cur?.mode ?? 0o644, cur?.id ?? null);
 * ```
 */
export function replaceContent(
  t: WriteTarget,
  bytes: Uint8Array,
  mode: number,
  expectId: string | null,
): void {
  if (t.inPlace) {
    if (expectId === null) throw new PathError(`${showPath(t.logical)} does not exist.`);
    return rewriteInPlace(t, bytes, expectId);
  }
  const tmp = stageTemp(t, bytes, mode);
  try {
    if (currentId(t) !== expectId) {
      throw new PathError(`${showPath(t.logical)} changed while it was being written; try again.`);
    }
    renameIn(t, tmp, t.name);
  } catch (e) {
    discardTemp(t, tmp);
    throw e;
  }
}
