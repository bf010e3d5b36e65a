/**
 * For a failed readiness check: which manifest key it is about and what to do about it,
 * for `tools check`'s human report.
 *
 * @module
 */

/** The key below a declaration that a check is about (`executable` → `command`). */
const CHECK_KEYS: Record<string, string> = {
  executable: "command",
  operands: "args",
  execution_path: "execution_paths",
  target: "args",
  builtin: "builtin",
};

/**
 * The TOML key path a check (`executable`, `start.operands`, ...) of a declaration at
 * `keyPath` is about.
 *
 * @example
 * ```ts
 * import { checkKeyPath } from "./fixes.ts";
 * checkKeyPath("artifacts.app.views.agent_sessions.web", "start.executable");
 * // "artifacts.app.views.agent_sessions.web.start.command"
 * ```
 */
export function checkKeyPath(keyPath: string, check: string): string {
  const dot = check.lastIndexOf(".");
  const part = dot < 0 ? "" : `.${check.slice(0, dot)}`;
  const key = CHECK_KEYS[check.slice(dot + 1)];
  return key === undefined ? keyPath : `${keyPath}${part}.${key}`;
}

const FIXES: [RegExp, string][] = [
  [
    /^lock: it is not in toolhost\.lock yet/,
    "review the new declaration, then run `toolhost lock` to add it",
  ],
  [
    /^lock: it differs from what toolhost\.lock pins/,
    "if the change is yours, review it (`toolhost lock --check`) and run `toolhost lock`; " +
    "otherwise undo it",
  ],
  [
    /^confinement: unavailable/,
    "make confinement work here as the reason says, or remove `sandbox` from this declaration " +
    "(and any `[sandbox]` default) to run it unconfined on this machine",
  ],
  [
    /interpreter .* not found on PATH/,
    "install that interpreter, or change the script's `#!` line",
  ],
  [
    /interpreter .* missing or not executable/,
    "install that interpreter, or change the script's `#!` line",
  ],
  [
    /not found on PATH/,
    "install the program or add its folder to PATH; or give a path with `/`, relative to the Artifact's folder",
  ],
  [
    /the command's file does not exist/,
    "create the file (a path relative to the Artifact's folder) and make it executable " +
    "(`chmod +x`), or correct `command`",
  ],
  [/the command's file is not executable/, "make it executable: `chmod +x` the file"],
  [/the command is not a regular file/, "point `command` at a program file, not a folder"],
  [/outside the workspace/, "point `command` at a file inside the workspace"],
  [/is not in scope/, "add the Artifact to the eval's `references`"],
  [
    /goes through a symlink/,
    "replace the symlink with the real file or folder, or declare the real path",
  ],
  [
    /relative to the workspace root, not the Artifact's folder/,
    "write the path from the workspace root, as suggested",
  ],
  [/is missing/, "create it, or correct the declared path"],
  [/is not a (file|folder)|special file/, "declare a path of the right kind"],
  [
    /the tool would be refused/,
    "run where resource limits can be enforced (cgroup v2 or rlimits), or remove the limits",
  ],
];

/**
 * What to do about a failed check, from its (value-free) detail; undefined when there is
 * nothing more specific to say than the detail itself.
 *
 * @example
 * ```ts
 * import { fixFor } from "./fixes.ts";
 * fixFor("the command was not found on PATH"); // "install the program or add its folder to PATH; ..."
 * ```
 */
export function fixFor(detail: string): string | undefined {
  return FIXES.find(([re]) => re.test(detail))?.[1];
}
