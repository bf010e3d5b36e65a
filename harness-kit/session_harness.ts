/**
 * `sessionHarness`: one executable that is a whole tool-session harness.
 *
 * - `HARNESS start` — toolhost's start command: runs the author's `start(context)` (its
 *   return value is the session state), serves the actions on a Unix socket in the
 *   session directory, prints the readiness line, and keeps running; `stop` over the
 *   socket, SIGTERM or SIGINT run the author's `stop(state)` once and exit.
 * - `HARNESS act NAME` or `HARNESS NAME` — a bound json-protocol tool: forwards its
 *   request to the running start process, which runs action NAME with the state, and
 *   prints the result. `HARNESS act` alone works when there is exactly one action.
 * - `HARNESS stop` — toolhost's stop command: asks the start process to shut down.
 *
 * @module
 */

import process from "node:process";
import { guardConsole, writeStdout } from "./console_guard.ts";
import { type JsonToolOptions, runHandler } from "./json_tool.ts";
import { parseRequest, readStdin, type ToolRequest } from "./request.ts";
import { errorOutput } from "./result.ts";
import { requestLine, serveLines, socketPath } from "./socket_rpc.ts";
import type { JsonSchema, ResultObject, ToolContext, ToolOutput } from "./types.ts";

/** What the author's `start` receives. */
export type StartContext = ToolContext & { sessionDir: string };

/** What an action receives besides its arguments. */
export type ActionContext<S> = ToolContext & { sessionDir: string; state: S };

/** An action's logic. */
export type ActionHandler<S> = (
  args: Record<string, unknown>,
  context: ActionContext<S>,
) => ToolOutput | Promise<ToolOutput>;

/** An action: a handler, or a handler with an argument schema. */
export type Action<S> = ActionHandler<S> | { schema?: JsonSchema; handler: ActionHandler<S> };

/** Options of {@linkcode sessionHarness}. */
export interface SessionHarnessOptions<S> {
  /** Prepare the session (start the app, browser, REPL...); returns the session state. */
  start: (context: StartContext) => S | Promise<S>;
  /** Bound actions by name (the manifest runs `HARNESS NAME` or `HARNESS act NAME`). */
  actions: Record<string, Action<S>>;
  /** Tear the session down (called once, on toolhost's stop, SIGTERM or SIGINT). */
  stop?: (state: S, context: StartContext) => void | Promise<void>;
  /** The arguments to dispatch on. Default `process.argv.slice(2)`. */
  argv?: string[];
}

const USAGE = "usage: HARNESS start | stop | act [ACTION] | ACTION";

function fail(code: number, message: string): never {
  console.error(`toolhost harness-kit: ${message}`);
  process.exit(code);
}

async function request(): Promise<ToolRequest & { sessionDir: string }> {
  let req: ToolRequest;
  try {
    req = parseRequest(await readStdin());
  } catch (e) {
    fail(2, e instanceof Error ? e.message : "stdin could not be read");
  }
  const dir = req.context.sessionDir;
  if (dir === undefined) {
    fail(2, "ARTIFACTIZE_SESSION_DIR is not set; run this harness through toolhost");
  }
  return { ...req, sessionDir: dir };
}

function actionOptions<S>(
  a: Action<S>,
  state: S,
  sessionDir: string,
): JsonToolOptions<Record<string, unknown>> {
  const { schema, handler } = typeof a === "function" ? { schema: undefined, handler: a } : a;
  return { schema, handler: (args, ctx) => handler(args, { ...ctx, sessionDir, state }) };
}

async function serve<S>(o: SessionHarnessOptions<S>): Promise<void> {
  const req = await request();
  const ctx: StartContext = { ...req.context, sessionDir: req.sessionDir };
  let state: S;
  try {
    state = await o.start(ctx);
  } catch (e) {
    console.error(e);
    fail(1, "start failed");
  }
  let stopping: Promise<void> | undefined;
  const shutdown = () => (stopping ??= (async () => {
    await server.close();
    try {
      await o.stop?.(state, ctx);
    } catch (e) {
      console.error(e);
    }
  })());
  const server = await serveLines(socketPath(req.sessionDir), async (m) => {
    const msg = m as {
      op?: string;
      action?: string;
      args?: Record<string, unknown>;
      context?: ToolContext;
    };
    if (msg.op === "stop") {
      await shutdown();
      return { reply: { stopped: true }, after: () => process.exit(0) };
    }
    const action = typeof msg.action === "string" && Object.hasOwn(o.actions, msg.action)
      ? o.actions[msg.action]
      : undefined;
    if (msg.op !== "act" || action === undefined || msg.context === undefined) {
      return { reply: { result: errorOutput("The harness has no such action.") } };
    }
    const result = await runHandler(actionOptions(action, state, req.sessionDir), msg.args ?? {}, {
      ...msg.context,
      sessionDir: req.sessionDir,
    });
    return { reply: { result } };
  });
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    process.on(sig, () => void shutdown().finally(() => process.exit(0)));
  }
  await writeStdout("ready\n");
}

async function forward(action: string): Promise<never> {
  const req = await request();
  let result: ResultObject;
  try {
    const reply = await requestLine(socketPath(req.sessionDir), {
      op: "act",
      action,
      args: req.args,
      context: req.context,
    }) as { result?: ResultObject; error?: string };
    result = reply.result ?? errorOutput(`The harness failed: ${reply.error ?? "no result"}.`);
  } catch {
    result = errorOutput("The session harness is not running; the tool session may have ended.");
  }
  await writeStdout(JSON.stringify(result));
  process.exit(0);
}

async function requestStop(): Promise<never> {
  const req = await request();
  try {
    await requestLine(socketPath(req.sessionDir), { op: "stop" });
  } catch {
    // Nothing is listening: the session is already down.
  }
  process.exit(0);
}

/**
 * Be a session harness (see the module documentation). Authors write only handlers;
 * state returned by `start` is handed to every action and to `stop`.
 *
 * @example A harness's whole program (it speaks on stdin/stdout: toolhost, or `testSession`, runs it)
 * ```ts ignore
 * import { sessionHarness } from "./mod.ts";
 * await sessionHarness({
 *   start: () => ({ count: 0 }),
 *   actions: {
 *     counter_add: (args, { state }) => String((state.count += Number(args.by ?? 1))),
 *     counter_get: (_args, { state }) => String(state.count),
 *   },
 * });
 * ```
 */
export async function sessionHarness<S>(options: SessionHarnessOptions<S>): Promise<void> {
  guardConsole();
  const [role, name] = options.argv ?? process.argv.slice(2);
  if (role === "start") return await serve(options);
  if (role === "stop") return await requestStop();
  const names = Object.keys(options.actions);
  if (role === "act") {
    const action = name ?? (names.length === 1 ? names[0] : undefined);
    if (action === undefined || !names.includes(action)) {
      fail(2, `${USAGE}; actions: ${names.join(", ")}`);
    }
    return await forward(action);
  }
  if (role !== undefined && names.includes(role)) return await forward(role);
  fail(2, `${USAGE}; actions: ${names.join(", ")}`);
}
