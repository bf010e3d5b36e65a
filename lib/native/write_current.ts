/**
 * What a native write finds at its target before it changes it: the current regular file
 * (opened through the sandbox, checked after open against what was checked before it), its
 * identity, and the refusal of a file with other hard links.
 *
 * @module
 */

import fs from "node:fs";
import { PathError } from "../errors/errors.ts";
import { pathErrorFor } from "../paths/errno.ts";
import { showPath } from "../paths/show_path.ts";
import { NATIVE_LIMITS } from "./limits.ts";
import type { CurrentFile, WriteTarget } from "./write_target.ts";

const C = fs.constants;

const LINKED =
  "has other hard links; writing it would change (or detach) the same file under its " +
  "other names, possibly outside the Artifact, so it is refused. Remove the other links first.";

/**
 * Throw when a regular file has more than one hard link.
 *
 * @throws {PathError} naming the logical path.
 * @example
 * ```ts
 * import { refuseLinked } from "./write_current.ts";
 * // refuseLinked(fs.fstatSync(fd, { bigint: true }), "a.txt");
 * ```
 */
export function refuseLinked(st: fs.BigIntStats, logical: string): void {
  if (st.nlink > 1n) throw new PathError(`${showPath(logical)} ${LINKED}`);
}

/**
 * Open the target's regular file read-only through the sandbox, which refuses a file
 * whose identity is a non-admitted Artifact (another name of it) and anything not a
 * regular file.
 */
function openExisting(t: WriteTarget, p: string): number {
  const fd = t.box.childFile(t.dir, t.name, true);
  if (fd !== null) return fd;
  try {
    fs.closeSync(fs.openSync(p, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK));
  } catch (e) {
    throw pathErrorFor(e, t.logical); // the reason it could not be opened
  }
  throw new PathError(
    `${showPath(t.logical)} is another name of a file that belongs to an Artifact this eval does ` +
      "not admit (or it changed while it was being opened); it cannot be changed.",
  );
}

/**
 * The target's current regular file, or null when it does not exist.
 *
 * @throws {PathError} when it is a symlink, a folder or a special file, too large, a
 * name of a non-admitted Artifact, or a file with other hard links.
 * @example
 * ```ts
 * import { readCurrent } from "./write_current.ts";
 * // const cur = readCurrent(t); // null → a new file
 * ```
 */
export function readCurrent(t: WriteTarget): CurrentFile | null {
  const p = `${t.dir.base}/${t.name}`;
  const st = fs.lstatSync(p, { bigint: true, throwIfNoEntry: false });
  if (!st) return null;
  if (st.isSymbolicLink()) {
    throw new PathError(`${showPath(t.logical)} is a symlink; native tools never follow symlinks.`);
  }
  if (st.isDirectory()) throw new PathError(`${showPath(t.logical)} is a folder, not a file.`);
  if (!st.isFile()) {
    throw new PathError(`${showPath(t.logical)} is a special file and cannot be written.`);
  }
  const fd = openExisting(t, p);
  try {
    const f = fs.fstatSync(fd, { bigint: true });
    if (f.dev !== st.dev || f.ino !== st.ino || !f.isFile()) {
      throw new PathError(`${showPath(t.logical)} changed while it was being opened; try again.`);
    }
    refuseLinked(f, t.logical);
    if (f.size > BigInt(NATIVE_LIMITS.writeMaxFileBytes)) {
      throw new PathError(
        `${
          showPath(t.logical)
        } is larger than ${NATIVE_LIMITS.writeMaxFileBytes} bytes; it cannot be changed with this tool.`,
      );
    }
    return { bytes: fs.readFileSync(fd), mode: Number(f.mode & 0o7777n), id: `${f.dev}:${f.ino}` };
  } finally {
    fs.closeSync(fd);
  }
}

/** The identity of the target's current entry (`dev:ino`), or null when missing. */
export function currentId(t: WriteTarget): string | null {
  const st = fs.lstatSync(`${t.dir.base}/${t.name}`, { bigint: true, throwIfNoEntry: false });
  return st ? `${st.dev}:${st.ino}` : null;
}
