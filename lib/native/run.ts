/**
 * Dispatch of the native catalog. Arguments were admitted against the tool's published
 * schema; user mistakes come back as error results (value-free), never as exceptions.
 *
 * @module
 */

import { optInt } from "../builtins/common.ts";
import { checkSignal, toErrorResult } from "../builtins/common.ts";
import type { ToolResult } from "../results/types.ts";
import { bool, int, type NativeEnv, str } from "./context.ts";
import { runFilesFind } from "./find.ts";
import { runGitDiff, runGitStatus } from "./git.ts";
import { runFilesInspect } from "./inspect.ts";
import { runFilesList } from "./list.ts";
import { runFilesPatch } from "./patch.ts";
import { runFilesRead } from "./read.ts";
import { runFilesSearch } from "./search.ts";
import { runShellExec } from "./shell.ts";
import type { NativeName } from "./specs.ts";
import { runFilesEdit, runFilesWrite } from "./write.ts";

type Args = Record<string, unknown>;
const strings = (
  v: unknown,
) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined);
const record = (v: unknown) =>
  typeof v === "object" && v !== null && !Array.isArray(v)
    ? v as Record<string, string>
    : undefined;

function dispatch(name: NativeName, a: Args, env: NativeEnv): Promise<ToolResult> {
  switch (name) {
    case "files_read":
      return runFilesRead({
        path: str(a.path)!,
        offsetBytes: optInt(a.offsetBytes),
        maxBytes: optInt(a.maxBytes),
      }, env);
    case "files_list":
      return runFilesList(
        { path: str(a.path), depth: optInt(a.depth), maxEntries: optInt(a.maxEntries) },
        env,
      );
    case "files_find":
      return runFilesFind({
        pattern: str(a.pattern)!,
        path: str(a.path),
        depth: optInt(a.depth),
        maxResults: optInt(a.maxResults),
      }, env);
    case "files_inspect":
      return runFilesInspect({ path: str(a.path)! }, env);
    case "files_search":
      return runFilesSearch({
        query: str(a.query)!,
        path: str(a.path),
        glob: str(a.glob),
        maxMatches: optInt(a.maxMatches),
      }, env);
    case "files_write":
      return runFilesWrite({
        path: str(a.path)!,
        content: str(a.content) ?? "",
        createParents: bool(a.createParents, true),
      }, env);
    case "files_edit":
      return runFilesEdit({
        path: str(a.path)!,
        oldText: str(a.oldText)!,
        newText: str(a.newText) ?? "",
      }, env);
    case "files_patch":
      return runFilesPatch({ patch: str(a.patch)! }, env);
    case "shell_exec":
      return runShellExec({
        command: str(a.command),
        executable: str(a.executable),
        args: strings(a.args),
        cwd: str(a.cwd),
        timeoutMs: optInt(a.timeoutMs),
        maxOutputBytes: optInt(a.maxOutputBytes),
        env: record(a.env),
        protectedBindings: record(a.protectedBindings),
      }, env);
    case "git_status":
      return runGitStatus({ untracked: bool(a.untracked, true) }, env);
    case "git_diff":
      return runGitDiff({
        staged: bool(a.staged, false),
        paths: strings(a.paths),
        contextLines: int(a.contextLines, 3),
      }, env);
  }
}

/**
 * Run a native tool and return its normalized result (errors included).
 *
 * @example
 * ```ts
 * import { runNative } from "./run.ts";
 * // const r = await runNative("files_read", { path: "README.md" }, env);
 * ```
 */
export async function runNative(name: NativeName, args: Args, env: NativeEnv): Promise<ToolResult> {
  try {
    checkSignal(env.signal);
    return await dispatch(name, args ?? {}, env);
  } catch (e) {
    return toErrorResult(e);
  }
}
