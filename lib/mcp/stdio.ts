/**
 * `toolhost serve` over stdio: one process, one connection, one tool source. stdout
 * carries only the protocol; every log line goes to stderr. The connection ends when
 * stdin closes, the transport closes, or SIGINT/SIGTERM/SIGHUP arrives; then in-flight calls are
 * cancelled, the source is closed (sessions stopped with full cleanup, extension servers
 * stopped) and the outcome is confirmed before the promise settles.
 *
 * @module
 */

import process from "node:process";
import type { Readable, Writable } from "node:stream";
import type { McpServerOptions, ToolhostMcpServer } from "./server.ts";
import { initializeResult, listToolsResult, serverCapabilities } from "./early_answers.ts";
import { openStdioStreams, type StdioStreams } from "./stdio_streams.ts";
import { type EarlyAnswers, StdioFront } from "./stdio_front.ts";
import type { ToolSource } from "./tool_source.ts";

/** Options of {@link serveStdio}. */
export interface StdioServeOptions extends McpServerOptions {
  /** Protocol input. Default: the process's stdin (see {@link openStdioStreams}). */
  stdin?: Readable;
  /** Protocol output. Default: the process's stdout (see {@link openStdioStreams}). */
  stdout?: Writable;
  /** Stop on SIGINT/SIGTERM/SIGHUP. Default true. */
  handleSignals?: boolean;
}

/** How a stdio connection ended. */
export interface StdioOutcome {
  /** What ended it. */
  reason: "stdin closed" | "transport closed" | "SIGINT" | "SIGTERM" | "SIGHUP";
}

/**
 * Serve `source` on stdio until the connection ends, then clean up. Resolves once the
 * source is closed (cleanup confirmed); rejects with the cleanup error otherwise.
 *
 * @example
 * ```ts
 * import { serveStdio } from "./stdio.ts";
 * // const outcome = await serveStdio(evalToolSource(reg), { log: (l) => console.error(l) });
 * ```
 */
export async function serveStdio(
  source: ToolSource,
  opts: StdioServeOptions = {},
): Promise<StdioOutcome> {
  const own: StdioStreams = openStdioStreams({ input: !opts.stdin, output: !opts.stdout });
  const stdin = opts.stdin ?? own.input;
  const stdout = opts.stdout ?? own.output;
  const end = watchEnd(stdin, stdout, opts.handleSignals ?? true);
  const { finish } = end;
  // A source whose tools can change notifies through the SDK server: it is loaded at once.
  const early = source.onToolsChanged === undefined ? earlyAnswers(source, opts) : undefined;
  let mcp: ToolhostMcpServer | undefined;
  let loading: Promise<void> | undefined;
  let over = false; // once the connection ended, nothing more is loaded
  const front = new StdioFront(stdin, stdout, {
    early,
    needServer: () => void load(),
    onEarlyClose: () => finish("transport closed"),
    log: opts.log,
  });
  const load = () =>
    over ? loading : loading ??= (async () => {
      const [{ createMcpServer }, { parseMessageLine }] = await Promise.all([
        import("./server.ts"),
        import("./plain_request.ts"),
      ]);
      const server = createMcpServer(source, {
        ...opts,
        spliceMirrors: true,
        replyBacklog: () => stdout.writableLength,
      });
      mcp = server;
      server.server.onclose = () => finish("transport closed");
      await server.connect(front);
      await front.handOver(parseMessageLine, (m) => server.serialize(m));
    })().catch((e) => {
      opts.log?.(`the MCP server could not start: ${e instanceof Error ? e.name : typeof e}`);
      finish("transport closed");
    });
  try {
    front.begin();
    if (early === undefined) void load();
    const reason = await end.ended;
    over = true;
    opts.log?.(`connection ended (${reason}); stopping sessions and extensions`);
    await loading; // a server being connected finishes first, then shuts down
    if (mcp !== undefined) {
      await mcp.shutdown();
    } else {
      await front.close();
      await source.close();
    }
    opts.log?.("cleanup confirmed");
    return { reason };
  } finally {
    try {
      await own.release(); // flushes output: its error listener stays until this is done
    } finally {
      end.dispose();
    }
  }
}

/**
 * What ends the connection: stdin's end, an output error, SIGINT/SIGTERM/SIGHUP (when
 * `signals`), or `finish` (the transport closed); `dispose` removes the listeners.
 */
function watchEnd(stdin: Readable, stdout: Writable, signals: boolean): {
  ended: Promise<StdioOutcome["reason"]>;
  finish: (r: StdioOutcome["reason"]) => void;
  dispose: () => void;
} {
  let finish!: (r: StdioOutcome["reason"]) => void;
  const ended = new Promise<StdioOutcome["reason"]>((resolve) => (finish = resolve));
  const onEnd = () => finish("stdin closed");
  const onOutputError = () => finish("transport closed");
  const handlers = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((name) => {
    const h = () => finish(name);
    if (signals) process.on(name, h);
    return [name, h] as const;
  });
  stdin.once("end", onEnd);
  stdin.once("close", onEnd);
  stdout.on("error", onOutputError);
  return {
    ended,
    finish,
    dispose() {
      stdin.off("end", onEnd);
      stdin.off("close", onEnd);
      stdout.off("error", onOutputError);
      if (signals) { for (const [name, h] of handlers) process.off(name, h); }
    },
  };
}

/** The answers to `initialize` and `tools/list` that the SDK server would send. */
function earlyAnswers(source: ToolSource, opts: McpServerOptions): EarlyAnswers {
  const capabilities = serverCapabilities(source);
  return {
    initialize: (version) => initializeResult(version, capabilities, opts.instructions),
    list: async () => listToolsResult(await source.list()),
  };
}
