/**
 * Append-only files below the state directory (`plugins.log`, `audit.log`) opened
 * without following links: every state-directory component below the workspace must be
 * a real directory (never a symbolic link), the file is opened with
 * `O_NOFOLLOW | O_APPEND | O_CREAT | O_NONBLOCK` and must then be a regular file with one
 * link, and the directory chain and the file are checked again after the open. A refusal
 * is reported once per file on stderr, without paths or values; logging never breaks a
 * call.
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { makeDirsSync } from "../paths/make_dirs.ts";

/** The state file cannot be opened safely (value-free message). */
export class StateFileRefused extends Error {
  override name = "StateFileRefused";
}

const FLAGS = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT |
  fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/** The directories to check, outermost first: below `root` when inside it, else `dir`. */
function chain(dir: string, root: string | undefined): { dirs: string[]; inside: boolean } {
  const abs = path.resolve(dir);
  if (root !== undefined) {
    const rel = path.relative(path.resolve(root), abs);
    if (rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)) {
      const dirs: string[] = [];
      let cur = path.resolve(root);
      for (const part of rel.split(path.sep)) dirs.push(cur = path.join(cur, part));
      return { dirs, inside: true };
    }
  }
  return { dirs: [abs], inside: false };
}

function realDirectory(dir: string, create: boolean): void {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(dir);
  } catch {
    if (!create) throw new StateFileRefused("a state directory disappeared");
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch { /* raced with another creator: checked below */ }
    st = fs.lstatSync(dir);
  }
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new StateFileRefused("the state directory is a symbolic link or not a directory");
  }
}

/**
 * Open `<stateDir>/<name>` for appending, creating missing state directories (0700) and
 * the file (0600). `root` is the workspace root: every component between it and the
 * state directory is checked; a state directory outside the workspace is checked itself.
 *
 * @throws {StateFileRefused} for a symbolic link, a non-regular or hard-linked file.
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { openStateAppend } from "./state_file.ts";
 * const ws = fs.mkdtempSync(join(tmpdir(), "ws-"));
 * fs.mkdirSync(join(ws, ".toolhost/state"), { recursive: true, mode: 0o700 });
 * const fd = openStateAppend(join(ws, ".toolhost/state"), "plugins.log", ws);
 * fs.writeSync(fd, "line\n");
 * fs.closeSync(fd);
 * ```
 */
export function openStateAppend(stateDir: string, name: string, root?: string): number {
  const { dirs, inside } = chain(stateDir, root);
  // Outside the workspace, the folders above the state directory are the operator's choice.
  if (!inside) makeDirsSync(path.dirname(dirs[0]), 0o700);
  for (const d of dirs) realDirectory(d, true);
  const file = path.join(path.resolve(stateDir), name);
  let fd: number;
  try {
    fd = fs.openSync(file, FLAGS, 0o600);
  } catch {
    throw new StateFileRefused("the file cannot be opened (a symbolic link or a special file?)");
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.nlink !== 1) {
      throw new StateFileRefused("the file is not a regular file with a single link");
    }
    for (const d of dirs) realDirectory(d, false);
    const now = fs.lstatSync(file);
    if (now.dev !== st.dev || now.ino !== st.ino) {
      throw new StateFileRefused("the file was replaced while it was opened");
    }
    return fd;
  } catch (e) {
    fs.closeSync(fd);
    throw e instanceof StateFileRefused ? e : new StateFileRefused("the file cannot be checked");
  }
}

const reported = new Set<string>();

/**
 * Tell the operator, once per process and file name, that a state file is not written.
 * The line names the file (`plugins.log`) and the reason — never a path or a value.
 *
 * @example
 * ```ts
 * import { reportStateFileRefused } from "./state_file.ts";
 * reportStateFileRefused("audit.log", new Error("the state directory is a symbolic link"));
 * ```
 */
export function reportStateFileRefused(name: string, e: unknown): void {
  if (reported.has(name)) return;
  reported.add(name);
  const why = e instanceof StateFileRefused ? e.message : "it cannot be opened";
  try {
    process.stderr.write(`toolhost: ${name} is not written: ${why}.\n`);
  } catch { /* stderr closed */ }
}
