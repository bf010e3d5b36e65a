/**
 * Program lookup: a command without `/` is looked up on PATH; a command with `/` is
 * relative to the owner's working directory and must stay inside the workspace.
 *
 * @module
 */

import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, relative, resolve } from "node:path";

/**
 * Is `command` (relative to `cwd`) lexically inside `root`?
 *
 * @example
 * ```ts
 * import { isInsideWorkspace } from "./program_path.ts";
 * isInsideWorkspace("/ws", "/ws/app", "tools/run"); // true
 * isInsideWorkspace("/ws", "/ws/app", "../../bin/sh"); // false
 * ```
 */
export function isInsideWorkspace(root: string, cwd: string, command: string): boolean {
  const rel = relative(root, resolve(cwd, command));
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
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
    return isExecutable(path)
      ? { ok: true, path }
      : { ok: false, reason: "the command is missing or not an executable file" };
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const path = join(dir, command);
    if (isExecutable(path)) return { ok: true, path };
  }
  return { ok: false, reason: "the command was not found on PATH" };
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
