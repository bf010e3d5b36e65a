/**
 * Run an in-process built-in tool (every built-in except `help`, which the registry runs
 * as a process). Arguments were already admitted against the published schema; forms
 * with a fixed target take it from the declaration's `args`. User mistakes (bad paths,
 * patterns, missing files) come back as error results, never as exceptions.
 *
 * @module
 */

import { optInt, str } from "./common.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import type { BuiltinToolDecl } from "../workspace/types.ts";
import type { BuiltinEnv } from "./context.ts";
import { checkSignal, toErrorResult } from "./common.ts";
import { runRead } from "./read.ts";
import { runList } from "./list.ts";
import { runGlob } from "./glob.ts";
import { runGrep } from "./grep.ts";
import { runViewImage } from "./view_image.ts";
import { runSection } from "./section.ts";
import { runGraph } from "./graph.ts";

function dispatch(
  decl: BuiltinToolDecl,
  args: Record<string, unknown>,
  env: BuiltinEnv,
): Promise<ToolResult> | ToolResult {
  const fixed = decl.args;
  switch (decl.builtin) {
    case "read":
      return fixed ? runRead({ path: fixed[0] }, env) : runRead(
        { path: str(args.path) as string, line: optInt(args.line), limit: optInt(args.limit) },
        env,
      );
    case "list":
      return runList({ path: fixed ? fixed[0] : str(args.path) }, env);
    case "glob":
      return runGlob({ pattern: str(args.pattern) as string, path: str(args.path) }, env);
    case "grep":
      return runGrep(
        { pattern: str(args.pattern) as string, path: str(args.path), glob: str(args.glob) },
        env,
      );
    case "view_image":
      return runViewImage({ path: str(args.path) as string }, env);
    case "section":
      if (!fixed || fixed.length !== 2) return errorResult("section needs [file, heading] args.");
      return runSection(fixed, env);
    case "graph":
      return runGraph(env.workspace);
    case "help":
      return errorResult("The help built-in runs as a process through the registry.");
    default:
      return errorResult("Unknown built-in tool.");
  }
}

/**
 * Run a built-in and return its normalized result. Results carry `artifactId` (the
 * declaring Artifact), `resolvedArtifactId` and the logical `path` — never physical paths.
 *
 * @example
 * ```ts
 * import { runBuiltin } from "./run.ts";
 * // const res = await runBuiltin(decl, { path: "rules/requirements.md" }, env);
 * // res.content[0] → { type: "json", data: { artifactId: "app", resolvedArtifactId: "spec", ... } }
 * ```
 */
export async function runBuiltin(
  decl: BuiltinToolDecl,
  args: Record<string, unknown>,
  env: BuiltinEnv,
): Promise<ToolResult> {
  try {
    checkSignal(env.signal);
    return await dispatch(decl, args ?? {}, env);
  } catch (e) {
    return toErrorResult(e);
  }
}
