/**
 * What a command runs includes the workspace files its declared arguments name:
 * `command = "sh", args = ["tools/run.sh"]` (or `node tools/x.mjs`, `python3 srv.py`)
 * runs `tools/run.sh` as surely as a `#!` script runs itself. A lock that pinned only `sh` would let that script change unnoticed. So each
 * literal argument (the caller gives the literal values: a plain tool's `{{`/`}}`
 * unescaped, an argument holding a plain placeholder left out; not an option, but an option's `=` value, as in
 * `--import=tools/hook.mjs`, counts like an argument) that names a regular file inside
 * the workspace (or a link there to one outside it, pinned by what it leads to) — relative to the command's working directory, or absolute — is a program
 * step `operand N` (N its index in `args`), hashed and watched like the command. A
 * path-like argument (holding a `/`) that names nothing yet is watched for appearing.
 *
 * @module
 */

import { realpathSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";

function within(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

/** The file `arg` names from `cwd` inside `root`: found, absent, or not a candidate. */
function operandFile(arg: string, root: string, cwd: string): string | "absent" | undefined {
  if (arg === "" || arg.startsWith("-") || arg.includes("\0")) {
    return undefined;
  }
  const abs = isAbsolute(arg) ? arg : join(cwd, arg);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    return arg.includes("/") && within(abs, root) ? "absent" : undefined;
  }
  // Named in the workspace, it is the workspace's program wherever a link there leads.
  if (!within(abs, root) && !within(real, root)) return undefined;
  try {
    return statSync(real).isFile() ? abs : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The program steps of a command's literal arguments that name workspace files (see the
 * module documentation); `deps` gets each file, and `?path` for a path-like argument that
 * names nothing yet.
 *
 * @example
 * ```ts
 * import { operandSteps } from "./operand_pin.ts";
 * operandSteps(["-c", "{query}"], "/ws", "/ws/app"); // []
 * ```
 */
export function operandSteps(
  args: readonly unknown[],
  root: string,
  cwd: string,
  deps?: string[],
): { role: string; abs: string }[] {
  const out: { role: string; abs: string }[] = [];
  args.forEach((arg, i) => {
    if (typeof arg !== "string") return; // `{artifact: ID}` unresolved: not a file
    // An option's value names a file as surely as a bare argument: `--import=tools/x.mjs`.
    const eq = arg.indexOf("=");
    const named = arg.startsWith("-") && eq > 0 ? arg.slice(eq + 1) : arg;
    const file = operandFile(named, root, cwd);
    if (file === undefined) return;
    if (file === "absent") {
      deps?.push(`?${isAbsolute(named) ? named : join(cwd, named)}`);
      return;
    }
    out.push({ role: `operand ${i}`, abs: file });
    deps?.push(file);
  });
  return out;
}
