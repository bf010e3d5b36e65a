/**
 * Program lookup: a command without `/` is looked up on PATH; a command with `/` is
 * relative to the owner's working directory and must stay inside the workspace — by its
 * text and, when it exists, by its realpath, so a symlink (the command itself or a folder
 * on the way) cannot lead out of the workspace.
 *
 * @module
 */

import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, relative, resolve } from "node:path";

/**
 * Is `command` (relative to `cwd`) inside `root` (a realpath)? Its path must be, and so
 * must its realpath when it exists (a missing command is reported where it is run).
 *
 * @example
 * ```ts
 * import { isInsideWorkspace } from "./program_path.ts";
 * isInsideWorkspace("/ws", "/ws/app", "tools/run"); // true
 * isInsideWorkspace("/ws", "/ws/app", "../../bin/sh"); // false
 * ```
 */
export function isInsideWorkspace(root: string, cwd: string, command: string): boolean {
  const path = resolve(cwd, command);
  if (!isBelow(root, path)) return false;
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return true;
  }
  return isBelow(root, real);
}

/**
 * Does the workspace-relative folder `rel` (an artifact root) lead outside `root` through a
 * symlink? False when it does not exist (yet): a root is checked again when used.
 *
 * @example
 * ```ts
 * import { leavesWorkspace } from "./program_path.ts";
 * leavesWorkspace("/ws", "out"); // false unless /ws/out is a link to elsewhere
 * ```
 */
export function leavesWorkspace(root: string, rel: string): boolean {
  let real: string;
  try {
    real = realpathSync(resolve(root, rel));
  } catch {
    return false;
  }
  return real !== root && !isBelow(root, real);
}

function isBelow(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel);
}

/**
 * Resolve a command to an absolute executable path, or return why it cannot be run.
 * PATH comes from `env.PATH`.
 *
 * @example
 * ```ts
 * import { resolveProgram } from "./program_path.ts";
 * resolveProgram("sh", "/tmp", "/", { PATH: "/usr/bin:/bin" }); // { ok: true, path: "/usr/bin/sh" }
 * ```
 */
export function resolveProgram(
  command: string,
  cwd: string,
  root: string,
  env: Record<string, string | undefined>,
): { ok: true; path: string } | { ok: false; reason: string } {
  if (command.includes("/")) {
    if (!isInsideWorkspace(root, cwd, command)) {
      return { ok: false, reason: "the command resolves outside the workspace" };
    }
    const path = resolve(cwd, command);
    const why = whyNotExecutable(path);
    return why === undefined ? { ok: true, path } : { ok: false, reason: why };
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const path = join(dir, command);
    if (isExecutable(path)) return { ok: true, path };
  }
  return { ok: false, reason: "the command was not found on PATH" };
}

function isExecutable(path: string): boolean {
  return whyNotExecutable(path) === undefined;
}

/**
 * Why a path cannot be run, worded so the fix differs: it does not exist, it is not a
 * regular file, or it lacks execute permission. Undefined when it can run. Names no path.
 */
function whyNotExecutable(path: string): string | undefined {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    return "the command's file does not exist";
  }
  if (!isFile) return "the command is not a regular file";
  try {
    accessSync(path, constants.X_OK);
    return undefined;
  } catch {
    return "the command's file is not executable";
  }
}
