/**
 * The MCP server of one connection: the SDK's low-level `Server` with `tools/list` and
 * `tools/call` handlers over a {@link ToolSource}, so toolhost's own JSON Schemas pass
 * through unchanged. Transports (stdio, Streamable HTTP) only connect it.
 *
 * - `tools/list` → the source's listing (name, description, inputSchema).
 * - `tools/call` → `source.call(name, args, { signal })`; the signal fires on the
 *   client's `notifications/cancelled` for that request and on connection shutdown.
 *   Unknown tools and internal failures are `isError` results, never protocol errors.
 * - A call that runs longer than `progressIntervalMs` (1 s) sends
 *   `notifications/progress` every interval when the request carried
 *   `_meta.progressToken`.
 * - `shutdown()` aborts in-flight calls, waits for them, closes the source (sessions,
 *   extension servers, state) and then the server. Cleanup errors are rethrown.
 *
 * @module
 */

import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolResult,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  type ProgressToken,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { ToolhostError } from "../errors/errors.ts";
import { errorResult } from "../results/types.ts";
import {
  LATEST_PROTOCOL_VERSION,
  listToolsResult,
  negotiatedVersion,
  SERVER_INFO,
  serverCapabilities,
} from "./early_answers.ts";
import { callSignals } from "./call_signal.ts";
import { setCallToolHandler } from "./call_tool_handler.ts";
import { JsonMirrors } from "./json_mirrors.ts";
import { lazyJsonSchemaValidator } from "./lazy_validator.ts";
import { coalescedNotice } from "./list_changed_notice.ts";
import { toMcpResult } from "./result_mapping.ts";
import { requestRoute } from "./request_route.ts";
import { guardRequestIds } from "./request_ids.ts";
import { CONNECTION_BACKLOG_BYTES, watchBacklog } from "./resource_gate.ts";
import { artifactLinks, registerArtifactResources } from "./resources.ts";
import type { ToolSource } from "./tool_source.ts";

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** Interval of progress notifications for long calls, ms. Default 1000. */
  progressIntervalMs?: number;
  /** Server `instructions` sent at initialization. Default none. */
  instructions?: string;
  /** Where to log (one line, no values). Default: nowhere. */
  log?: (line: string) => void;
  /**
   * Note mirrored json results for {@link ToolhostMcpServer.serialize}; only a transport
   * that serializes through it should ask. Default false.
   */
  spliceMirrors?: boolean;
  /**
   * Most `tools/call` requests of this connection running at once; one more is answered
   * at once with an error result (each call may start processes: one HTTP batch or one
   * pipelined write must not start thousands). Default {@link MAX_CALLS_IN_FLIGHT}.
   */
  maxCallsInFlight?: number;
  /**
   * This connection's reply bytes written but not yet taken by the client; bounds
   * `resources/read` (resource_gate.ts) and `tools/call`: above `CONNECTION_BACKLOG_BYTES`
   * a call is refused, and a result ready then is answered with an error instead (a client
   * that never reads its replies would otherwise make the process hold every one).
   * Default: not known (only the process gate of reads).
   */
  replyBacklog?: () => number;
}

/** Default of {@link McpServerOptions.maxCallsInFlight}. */
export const MAX_CALLS_IN_FLIGHT = 64;

/** A connection's server plus its lifecycle. */
export interface ToolhostMcpServer {
  /** The SDK server. Connect it with {@link ToolhostMcpServer.connect}. */
  server: Server;
  /**
   * Connect a transport (`server.connect`), also watching `initialize` for the protocol
   * version: `structuredContent` exists from 2025-06-18 on, so older clients get the
   * text alone.
   */
  connect(transport: Transport): Promise<void>;
  /** Number of calls in flight. */
  readonly inFlight: number;
  /**
   * Serializes this server's outgoing messages for a stream transport, splicing mirrored
   * `structuredContent` (see json_mirrors.ts).
   */
  serialize(message: JSONRPCMessage): string;
  /** Abort in-flight calls, await them, close the source, then the server. Idempotent. */
  shutdown(): Promise<void>;
}

/**
 * Build the MCP server for one tool source (one connection).
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * import { createMcpServer } from "./server.ts";
 * // const mcp = createMcpServer(source);
 * // await mcp.connect(new StdioServerTransport());
 * // ... await mcp.shutdown();
 * ```
 */
export function createMcpServer(
  source: ToolSource,
  opts: McpServerOptions = {},
): ToolhostMcpServer {
  const server = new Server(
    SERVER_INFO,
    {
      capabilities: serverCapabilities(source),
      instructions: opts.instructions,
      // Only `elicitInput` uses it, and toolhost never sends one: not built at start-up.
      jsonSchemaValidator: lazyJsonSchemaValidator(),
    },
  );
  // Extension servers can change their tools (their own notice, a restart): tell the client,
  // one notice at a time (list_changed_notice.ts). A failure: not connected (yet or any more).
  source.onToolsChanged?.(coalescedNotice(() => server.sendToolListChanged()));
  const stop = new AbortController();
  const inflight = new Set<Promise<unknown>>();
  const mirrors = new JsonMirrors();
  const client = { structured: true, version: LATEST_PROTOCOL_VERSION };
  registerHandlers(server, source, { stop: stop.signal, inflight, mirrors, client, ...opts });
  if (source.artifacts) {
    registerArtifactResources(server, source.artifacts, opts.replyBacklog);
  }

  const unwatch = opts.replyBacklog ? watchBacklog(opts.replyBacklog) : () => {};
  let closing: Promise<void> | undefined;
  return {
    server,
    get inFlight() {
      return inflight.size;
    },
    serialize: (message) => mirrors.serialize(message),
    async connect(transport) {
      // The SDK calls a handler the transport already had first; then its own sorting of
      // messages is the whole of what it does, and the shorter route may replace it.
      const route = transport.onmessage === undefined ? requestRoute(server) : undefined;
      await server.connect(transport);
      const inner = transport.onmessage;
      const admit = guardRequestIds(transport); // an id in flight is never taken twice
      transport.onmessage = (message, extra) => {
        if (!admit(message)) return;
        if ("method" in message && message.method === "initialize") {
          client.version = negotiatedVersion(message.params?.protocolVersion);
          client.structured = client.version >= "2025-06-18"; // ISO dates compare as strings
        }
        if (route?.(message, extra)) return;
        inner?.(message, extra);
      };
    },
    shutdown() {
      closing ??= (async () => {
        stop.abort();
        unwatch();
        await Promise.allSettled([...inflight]);
        try {
          await source.close();
        } finally {
          await server.close().catch(() => {});
        }
      })();
      return closing;
    },
  };
}

interface HandlerContext extends McpServerOptions {
  stop: AbortSignal;
  inflight: Set<Promise<unknown>>;
  mirrors: JsonMirrors;
  /** What the client negotiated: its protocol version; whether it has structuredContent. */
  client: { structured: boolean; version: string };
}

/**
 * The answer to a call while this connection holds more than `CONNECTION_BACKLOG_BYTES`
 * of replies its client has not taken; undefined otherwise.
 */
function backlogRefusal(ctx: HandlerContext): CallToolResult | undefined {
  if ((ctx.replyBacklog?.() ?? 0) <= CONNECTION_BACKLOG_BYTES) return undefined;
  return toMcpResult(errorResult(
    `This connection holds more than ${CONNECTION_BACKLOG_BYTES >> 20} MiB of replies its ` +
      "client has not read: read them, then call again.",
  ));
}

function registerHandlers(server: Server, source: ToolSource, ctx: HandlerContext): void {
  const interval = ctx.progressIntervalMs ?? 1000;
  const signalFor = callSignals(ctx.stop);
  // The same answer stdio may send before this server exists (stdio_front.ts).
  server.setRequestHandler(
    ListToolsRequestSchema,
    async () => listToolsResult(await source.list()),
  );
  // Not `server.setRequestHandler`: see call_tool_handler.ts for what that adds and why.
  setCallToolHandler(server, async (req, extra): Promise<CallToolResult> => {
    if (ctx.stop.aborted) return toMcpResult(errorResult("The server is shutting down."));
    const unread = backlogRefusal(ctx);
    if (unread !== undefined) return unread;
    const most = ctx.maxCallsInFlight ?? MAX_CALLS_IN_FLIGHT;
    if (ctx.inflight.size >= most) {
      return toMcpResult(errorResult(
        `Too many calls in flight on this connection (at most ${most}); this one was not ` +
          "started: send it again once an earlier call has answered.",
      ));
    }
    const call = signalFor(extra.signal);
    const token = req.params._meta?.progressToken;
    const ticker = token === undefined
      ? undefined
      : startProgress(token, interval, (n) => extra.sendNotification(n));
    const run = callSafely(
      source,
      req.params.name,
      req.params.arguments ?? {},
      call.signal,
      ctx.log,
    );
    ctx.inflight.add(run);
    try {
      const result = await run;
      const out = toMcpResult(result, {
        structuredContent: ctx.client.structured,
        protocolVersion: ctx.client.version,
      });
      // Artifacts the result names also as resource links, for clients that have them.
      if (source.artifacts && ctx.client.version >= "2025-06-18") {
        out.content.push(...artifactLinks(result, source.artifacts));
      }
      // Not one more reply held for a client that does not read them (its calls ran).
      const held = backlogRefusal(ctx);
      if (held !== undefined) return held;
      const first = out.content[0];
      if (ctx.spliceMirrors && out.structuredContent && first?.type === "text") {
        ctx.mirrors.note(extra.requestId, first.text, out.structuredContent);
      }
      return out;
    } finally {
      ctx.inflight.delete(run);
      call.dispose();
      if (ticker !== undefined) clearInterval(ticker);
    }
  });
}

async function callSafely(
  source: ToolSource,
  name: string,
  args: unknown,
  signal: AbortSignal,
  log?: (line: string) => void,
) {
  try {
    return await source.call(name, args, { signal });
  } catch (e) {
    if (e instanceof ToolhostError) return errorResult(e.message);
    log?.(`internal error in tool \`${name}\`: ${e instanceof Error ? e.name : typeof e}`);
    return errorResult("toolhost could not run the tool (internal error).");
  }
}

function startProgress(
  token: ProgressToken,
  intervalMs: number,
  send: (n: ServerNotification) => Promise<void>,
): ReturnType<typeof setInterval> {
  let n = 0;
  return setInterval(() => {
    n++;
    const seconds = Math.round((n * intervalMs) / 1000);
    send({
      method: "notifications/progress",
      params: { progressToken: token, progress: n, message: `running for ${seconds} s` },
    }).catch(() => {});
  }, intervalMs);
}
