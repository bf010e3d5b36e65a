/**
 * harness-kit: write toolhost tools and tool-session harnesses as plain handlers.
 *
 * - {@linkcode runJsonTool} — a json-protocol tool from one handler.
 * - {@linkcode sessionHarness} — one executable serving a whole tool session
 *   (`start`, `stop`, and bound actions over a Unix socket in the session directory).
 * - {@linkcode text}, {@linkcode json}, {@linkcode image} — content blocks.
 * - {@linkcode testTool}, {@linkcode testSession} — run a tool or harness through the real
 *   toolhost registry and session supervisor in a temporary workspace (loaded on first
 *   use, so tools that only import the runtime helpers start fast).
 *
 * Uses only `node:*` modules and web APIs: it runs under Deno and, from the npm package
 * (`toolhost/harness-kit`), under Node.
 *
 * @example A tool's whole program (it reads its request on stdin: toolhost, or `testTool`, runs it)
 * ```ts ignore
 * import { json, runJsonTool, text } from "./mod.ts";
 * await runJsonTool<{ name: string }>({
 *   schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
 *   handler: ({ name }, context) => [text(`Hello, ${name}`), json({ artifact: context.artifactId })],
 * });
 * ```
 *
 * @module
 */

import type {
  SessionUnderTest,
  TestSessionOptions,
  TestToolOptions,
  ToolUnderTest,
} from "./testing.ts";

export { image, json, text } from "./blocks.ts";
export { handleRequest, runHandler, runJsonTool } from "./json_tool.ts";
export type { Handled, JsonToolOptions, ToolHandler } from "./json_tool.ts";
export { sessionHarness } from "./session_harness.ts";
export type {
  Action,
  ActionContext,
  ActionHandler,
  SessionHarnessOptions,
  StartContext,
} from "./session_harness.ts";
export { errorOutput, toResult } from "./result.ts";
export { parseRequest, PROTOCOL_VERSION, RequestError, sessionDirFromEnv } from "./request.ts";
export type { ToolRequest } from "./request.ts";
export { validateArgs } from "./validate.ts";
export type {
  Block,
  ImageBlock,
  ImageMime,
  JsonBlock,
  JsonSchema,
  ResultObject,
  ScopeEntry,
  TextBlock,
  ToolContext,
  ToolOutput,
} from "./types.ts";
export type {
  SessionCommandSpec,
  SessionUnderTest,
  TestFile,
  TestSessionOptions,
  TestToolOptions,
  ToolSpec,
  ToolUnderTest,
} from "./testing.ts";

/**
 * The test helpers' module, named by a variable: Deno reads the whole graph of a literal
 * `import("...")` when the importing module loads, which would make every tool that only
 * imports the runtime helpers read and parse the registry's ~250 modules at start-up.
 */
const TESTING_MODULE = "./testing.ts";

async function testing(): Promise<typeof import("./testing.ts")> {
  return await import(TESTING_MODULE);
}

/**
 * Declare one command tool in a temporary workspace and call it through the real
 * registry (see testing.ts).
 *
 * @example
 * ```ts
 * import { testTool } from "./mod.ts";
 * await using tool = await testTool({ command: "node", args: ["/abs/path/stats.mjs"] });
 * console.log((await tool.call({ file: "README.md" })).isError);
 * ```
 */
export async function testTool(options: TestToolOptions): Promise<ToolUnderTest> {
  return await (await testing()).testTool(options);
}

/**
 * Declare a tool session and its bound tools in a temporary workspace and drive it
 * through the real supervisor (see testing.ts).
 *
 * @example
 * ```ts
 * import { testSession } from "./mod.ts";
 * await using s = await testSession({ harness: "/abs/path/app_harness.mjs", actions: { counter_get: {} } });
 * console.log((await s.call("counter_get")).content);
 * ```
 */
export async function testSession(options: TestSessionOptions): Promise<SessionUnderTest> {
  return await (await testing()).testSession(options);
}
