/**
 * Static readiness checks for one tool or session command: executable found, argv
 * operands valid, execution paths present. Never runs anything, never creates files.
 *
 * @module
 */

import { lstatPath } from "../workspace/lstat_path.ts";
import { relPathProblem } from "../workspace/rel_path.ts";
import { resolveProgram } from "../workspace/program_path.ts";
import { interpreterProblem } from "./interpreter.ts";
import type { ArgvElement, Artifact, Workspace } from "../workspace/types.ts";

/** One readiness check. */
export interface ReadinessCheck {
  /** What was checked: `executable`, `operands`, `execution_path`, `target`. */
  check: string;
  /** Whether it passed. */
  ok: boolean;
  /** A short value-free explanation. */
  detail: string;
}

/**
 * Check that a command can be found, without running it — and, for a script, that its
 * `#!` interpreter can be found too.
 *
 * @example
 * ```ts
 * import { checkExecutable } from "./static_checks.ts";
 * // checkExecutable(ws, artifact, "tools/run", process.env)
 * ```
 */
export function checkExecutable(
  ws: Workspace,
  a: Artifact,
  command: string,
  env: Record<string, string | undefined>,
): ReadinessCheck {
  const r = resolveProgram(command, a.cwd, ws.root, env);
  if (!r.ok) return { check: "executable", ok: false, detail: r.reason };
  const found = command.includes("/") ? "found" : "found on PATH";
  const why = interpreterProblem(r.path, env);
  return why === undefined
    ? { check: "executable", ok: true, detail: found }
    : { check: "executable", ok: false, detail: `${found}, but ${why}` };
}

/**
 * Check `{ artifact = ID }` operands against the scope.
 *
 * @example
 * ```ts
 * import { checkOperands } from "./static_checks.ts";
 * // checkOperands(ws, ["a", { artifact: "spec" }], new Set(["spec"]))
 * ```
 */
export function checkOperands(
  ws: Workspace,
  args: ArgvElement[],
  scope: Set<string>,
): ReadinessCheck {
  for (const e of args) {
    if (typeof e === "string") continue;
    if (!ws.artifacts.has(e.artifact) || !scope.has(e.artifact)) {
      return { check: "operands", ok: false, detail: `Artifact \`${e.artifact}\` is not in scope` };
    }
  }
  return { check: "operands", ok: true, detail: `${args.length} argv element(s) valid` };
}

/**
 * Check that a workspace-relative path exists with no symlink component and is a file or
 * folder (pinning will hash it). With the declaring Artifact's workspace-relative folder,
 * a missing path that exists below that folder is reported with the path to write instead
 * (execution paths are relative to the workspace root, unlike `command`).
 *
 * @example
 * ```ts
 * import { checkExecutionPath } from "./static_checks.ts";
 * // checkExecutionPath("/ws", "app/tools/run")
 * // checkExecutionPath("/ws", "run", "app/tools") // detail names `app/tools/run`
 * ```
 */
export function checkExecutionPath(
  root: string,
  rel: string,
  artifactDir?: string,
): ReadinessCheck {
  const why = relPathProblem(rel);
  if (why) return { check: "execution_path", ok: false, detail: `\`${rel}\` ${why}` };
  const r = checkNoSymlinkPath(root, rel, "either");
  if (r.ok || artifactDir === undefined || artifactDir === "" || artifactDir === ".") {
    return { check: "execution_path", ...r };
  }
  const meant = `${artifactDir}/${rel}`;
  if (!r.detail.endsWith("is missing") || !checkNoSymlinkPath(root, meant, "either").ok) {
    return { check: "execution_path", ...r };
  }
  return {
    check: "execution_path",
    ok: false,
    detail: `${r.detail}: execution paths are relative to the workspace root, ` +
      `not the Artifact's folder (did you mean \`${meant}\`?)`,
  };
}

/**
 * Check a fixed built-in target (a file or folder below the Artifact, no symlinks).
 *
 * @example
 * ```ts
 * import { checkTarget } from "./static_checks.ts";
 * // checkTarget(artifact, "rules/requirements.md", "file")
 * ```
 */
export function checkTarget(a: Artifact, rel: string, want: "file" | "folder"): ReadinessCheck {
  const why = relPathProblem(rel);
  if (why) return { check: "target", ok: false, detail: `\`${rel}\` ${why}` };
  if (a.kind === "file") {
    const name = a.relPath.split("/").pop();
    const ok = rel === name && want === "file";
    return {
      check: "target",
      ok,
      detail: ok ? "the Artifact's file" : "a file Artifact exposes only its file",
    };
  }
  return { check: "target", ...checkNoSymlinkPath(a.physicalPath, rel, want) };
}

function checkNoSymlinkPath(
  base: string,
  rel: string,
  want: "file" | "folder" | "either",
): { ok: boolean; detail: string } {
  const r = lstatPath(base, rel);
  if (!r.ok) {
    const detail = {
      missing: `\`${rel}\` is missing`,
      symlink: `\`${rel}\` goes through a symlink`,
      "not-folder": `\`${r.at}\` is not a folder`,
    }[r.reason];
    return { ok: false, detail };
  }
  const isFile = r.stat.isFile();
  const isDir = r.stat.isDirectory();
  if (!isFile && !isDir) return { ok: false, detail: `\`${rel}\` is a special file` };
  if (want === "file" && !isFile) return { ok: false, detail: `\`${rel}\` is not a file` };
  if (want === "folder" && !isDir) return { ok: false, detail: `\`${rel}\` is not a folder` };
  return { ok: true, detail: `\`${rel}\` present` };
}
