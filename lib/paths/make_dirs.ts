/**
 * `mkdir -p` without Node's recursive mkdir: Node 20's `mkdir(path, { recursive: true })`
 * spins forever on paths such as `/proc/nope` (the kernel answers ENOENT for a parent that
 * exists). This walks up to the nearest existing folder, then creates each missing folder
 * with a plain mkdir, in a loop bounded by the path's own depth.
 *
 * @module
 */

import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { errnoOf } from "./errno.ts";

/** Most path components walked (PATH_MAX 4096 holds at most 2048 one-character names). */
const MAX_COMPONENTS = 2048;

function notDir(dir: string): Error {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: "ENOTDIR" });
}

function tooDeep(dir: string): Error {
  return Object.assign(new Error(`ENAMETOOLONG: mkdir '${dir}'`), { code: "ENAMETOOLONG" });
}

/**
 * The missing folders of `dir`, outermost first, and a check that the nearest existing
 * ancestor is a folder.
 */
function missingChain(abs: string, isDir: (p: string) => boolean | undefined): string[] {
  const missing: string[] = [];
  let cur = abs;
  for (let i = 0; i < MAX_COMPONENTS; i++) {
    const st = isDir(cur);
    if (st === true) return missing.reverse();
    if (st === false) throw notDir(cur);
    missing.push(cur);
    const up = path.dirname(cur);
    if (up === cur) throw notDir(cur); // even the root is missing: nothing sane to do
    cur = up;
  }
  throw tooDeep(abs);
}

function statDirSync(p: string): boolean | undefined {
  try {
    return fs.statSync(p).isDirectory();
  } catch (e) {
    if (errnoOf(e) === "ENOENT") return undefined;
    throw e;
  }
}

/**
 * Create `dir` and any missing parents (each with `mode`), like `mkdir -p`, in a bounded
 * number of steps. Existing folders (also through symlinks, as `mkdir -p`) are kept.
 * Throws the Node-style error (`code` ENOENT, ENOTDIR, EACCES, ...) of the step that failed.
 *
 * @example
 * ```ts
 * import os from "node:os";
 * import { makeDirsSync } from "./make_dirs.ts";
 * makeDirsSync(`${os.tmpdir()}/toolhost-doc/a/b`, 0o700);
 * ```
 */
export function makeDirsSync(dir: string, mode = 0o777): void {
  for (const d of missingChain(path.resolve(dir), statDirSync)) {
    try {
      fs.mkdirSync(d, { mode });
    } catch (e) {
      if (errnoOf(e) !== "EEXIST") throw e;
      if (statDirSync(d) !== true) throw notDir(d); // raced with a creator: fine if a folder
    }
  }
}

/**
 * Asynchronous {@link makeDirsSync}.
 *
 * @example
 * ```ts
 * import os from "node:os";
 * import { makeDirs } from "./make_dirs.ts";
 * await makeDirs(`${os.tmpdir()}/toolhost-doc/c/d`, 0o700);
 * ```
 */
export async function makeDirs(dir: string, mode = 0o777): Promise<void> {
  const abs = path.resolve(dir);
  // Stat synchronously (cheap, bounded); only the creations are awaited.
  for (const d of missingChain(abs, statDirSync)) {
    try {
      await fsp.mkdir(d, { mode });
    } catch (e) {
      if (errnoOf(e) !== "EEXIST") throw e;
      if (statDirSync(d) !== true) throw notDir(d);
    }
  }
}
