/**
 * `runJsonTool`: a complete json-protocol tool from one handler.
 *
 * @module
 */

import process from "node:process";
import { guardConsole, writeStdout } from "./console_guard.ts";
import { parseRequest, readStdin, RequestError } from "./request.ts";
import { errorFromThrown, errorOutput, toResult } from "./result.ts";
import type { JsonSchema, ResultObject, ToolContext, ToolOutput } from "./types.ts";
import { validateArgs } from "./validate.ts";
import { prepareFs } from "./lazy_fs.ts";

/** A tool's handler: typed arguments and context in, content out (or a thrown error). */
export type ToolHandler<A> = (args: A, context: ToolContext) => ToolOutput | Promise<ToolOutput>;

/** Options of {@linkcode runJsonTool}. */
export interface JsonToolOptions<A> {
  /** Argument schema checked before the handler runs (see validate.ts for the subset). */
  schema?: JsonSchema;
  /** The tool's logic. */
  handler: ToolHandler<A>;
}

/** What handling one request produced. */
export interface Handled {
  /** The result object to print (absent for a request that is not a toolhost request). */
  result?: ResultObject;
  /** Process exit code: 0 with a result, 2 for an invalid request. */
  exitCode: number;
  /** Why the request was invalid (printed on stderr). */
  problem?: string;
}

/**
 * Run `handler` on already-parsed arguments: check them, call it, normalize the output.
 * Never throws.
 *
 * @example
 * ```ts
 * import { runHandler } from "./json_tool.ts";
 * // const result = await runHandler({ handler: (a) => "hi" }, args, context);
 * ```
 */
export async function runHandler<A>(
  options: JsonToolOptions<A>,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<ResultObject> {
  if (options.schema !== undefined) {
    const problems = validateArgs(options.schema, args);
    if (problems.length > 0) {
      return errorOutput(`The arguments were invalid: ${problems.join("; ")}.`);
    }
  }
  try {
    const output = await options.handler(args as A, context);
    await prepareFs(); // path images are measured with node:fs (loaded only then)
    return toResult(output, context.outputDir);
  } catch (e) {
    console.error(e); // stderr is for the author; toolhost never forwards it
    return errorFromThrown(e);
  }
}

/**
 * Handle one request text (what `runJsonTool` does, without the process I/O).
 *
 * @example
 * ```ts
 * import { handleRequest } from "./json_tool.ts";
 * const h = await handleRequest("not json", { handler: () => "x" });
 * console.log(h.exitCode); // 2
 * ```
 */
export async function handleRequest<A>(
  text: string,
  options: JsonToolOptions<A>,
  env: Record<string, string | undefined> = process.env,
): Promise<Handled> {
  let req;
  try {
    req = parseRequest(text, env);
  } catch (e) {
    if (e instanceof RequestError) return { exitCode: 2, problem: e.message };
    throw e;
  }
  return { result: await runHandler(options, req.args, req.context), exitCode: 0 };
}

/**
 * Be a json-protocol tool: read the request from stdin, check the arguments against
 * `schema`, call `handler(args, context)`, turn its return value into content blocks
 * (a string → one text block; blocks from `text()`, `json()`, `image()`), turn a thrown
 * error into a one-text-block `isError` result, enforce toolhost's output limits, print
 * the result and exit 0. A stdin that is not a toolhost request exits 2.
 * `console.log` goes to stderr while the tool runs.
 *
 * @example A tool's whole program (it reads its request on stdin: toolhost, or `testTool`, runs it)
 * ```ts ignore
 * import { json, runJsonTool, text } from "./mod.ts";
 * await runJsonTool<{ file: string }>({
 *   schema: { type: "object", properties: { file: { type: "string" } }, required: ["file"] },
 *   handler: (args, context) => [text(`Reading ${args.file}`), json({ artifact: context.artifactId })],
 * });
 * ```
 */
export async function runJsonTool<A = Record<string, unknown>>(
  options: JsonToolOptions<A>,
): Promise<never> {
  guardConsole();
  let handled: Handled;
  try {
    handled = await handleRequest(await readStdin(), options);
  } catch (e) {
    handled = { exitCode: 2, problem: e instanceof Error ? e.message : "stdin could not be read" };
  }
  if (handled.result === undefined) {
    console.error(`toolhost harness-kit: ${handled.problem}`);
    process.exit(handled.exitCode);
  }
  try {
    await writeStdout(JSON.stringify(handled.result));
  } catch {
    process.exit(1);
  }
  process.exit(0);
}
