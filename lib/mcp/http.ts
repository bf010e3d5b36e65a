/**
 * `toolhost serve --http HOST:PORT`: MCP Streamable HTTP on `/mcp`. Every `initialize`
 * creates a session (`Mcp-Session-Id`) that owns its own tool source — its registry, lazy
 * tool sessions, artifact directory and extension servers — and they end together:
 * on `DELETE`, transport close, idle timeout, eviction, or server shutdown (SIGINT/SIGTERM).
 * At the session cap the least recently used idle session is evicted for a new client;
 * when every session has a call in flight, 503 with `Retry-After` (`http_sessions.ts`).
 *
 * Guards (see `http_guard.ts`): loopback bind unless `allowRemote`; `Host` must be
 * loopback on a loopback bind; a present `Origin` must be allowed; the bearer token when
 * configured. Refusals are JSON-RPC error bodies with 401/403; unknown sessions get 404.
 * Connections are bounded, those no request passed the guards on (`http_pending.ts`) and
 * a client's (`http_clients.ts`).
 * `/healthz` and `/readyz` (`http_ops.ts`) answer behind the Host/Origin checks only (no
 * token, no peer check); {@link HttpMcpServer.drain}
 * is the graceful stop for a replica behind a load balancer (`http_drain.ts`).
 *
 * @module
 */

import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
// @ts-types="@modelcontextprotocol/sdk/server/streamableHttp"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { ToolhostError } from "../errors/errors.ts";
import {
  type BindAddress,
  checkBind,
  checkRequest,
  checkSite,
  type GuardPolicy,
  isLoopbackHost,
  listenError,
  loopbackOrigins,
  shortTokenWarning,
} from "./http_guard.ts";
import { createMcpServer, type McpServerOptions } from "./server.ts";
import {
  checkSessionLimits,
  type PoolSession,
  RETRY_AFTER_SECONDS,
  SessionPool,
} from "./http_sessions.ts";
import type { ToolSource } from "./tool_source.ts";
import { answerProbe } from "./http_ops.ts";
import { ReplyBacklog } from "./http_backlog.ts";
import { sameUserPeer } from "./peer_uid.ts";
import { closeForeignPeers, FOREIGN_PEER_MESSAGE } from "./foreign_peers.ts";
import { METRICS_PATH, ServeMetrics } from "./http_metrics.ts";
import { checkDrainTimeout, type DrainOutcome, untilQuiet } from "./http_drain.ts";
import { readJsonBody } from "./http_body.ts";
import { PendingConnections } from "./http_pending.ts";
import { ClientConnections } from "./http_clients.ts";
import { REUSED_ID_MESSAGE, reusesRequestId, transportOwes } from "./request_ids.ts";

/** The endpoint path. */
export const MCP_PATH = "/mcp";
export { MAX_BODY_BYTES } from "./http_body.ts";

/**
 * The 404 for an unknown `Mcp-Session-Id`: the protocol's signal to initialize again,
 * said in words a client's developer can act on (the id is not echoed).
 */
const SESSION_GONE = "Session not found: it was closed, idle too long, evicted, or this " +
  "server restarted; send initialize again without an Mcp-Session-Id header";

/** Options of {@link startHttpServer}. */
export interface HttpServeOptions extends McpServerOptions {
  /** Where to listen. */
  bind: BindAddress;
  /** Opens a fresh tool source for each new MCP session. */
  openSource: () => Promise<ToolSource>;
  /** Allow a non-loopback bind (requires `token`). Default false. */
  allowRemote?: boolean;
  /** Extra accepted `Origin` values. Default none (loopback origins of the port only). */
  allowOrigins?: string[];
  /**
   * Required bearer token. Default none. One shorter than 16 characters is served, with a
   * warning through `log` (it can be guessed).
   */
  token?: string;
  /** Where `token` came from, named in that warning (never its value). Default "token". */
  tokenSource?: string;
  /**
   * Most concurrent MCP sessions, 1..65536; at the cap the least recently used idle one is
   * evicted. Default 128.
   */
  maxSessions?: number;
  /** Close a session after this long without requests, ms (≤ 24 h). Default 900000 (15 min). */
  idleTimeoutMs?: number;
  /** Longest wait of {@link HttpMcpServer.drain} for open requests, ms (0..1 h). Default 30000. */
  drainTimeoutMs?: number;
  /**
   * Most connections no request has passed the guards on yet; the oldest is closed for
   * each one more (http_pending.ts), 1..65536. Default 256.
   */
  maxPendingConnections?: number;
  /**
   * Most connections a request passed the guards on (http_clients.ts), 1..65536: past it,
   * the one idle the longest is closed for a new one, or the new one gets 503 when every
   * one has a request open. Default 1024.
   */
  maxConnections?: number;
  /** Most time a POST body may take to arrive, ms (http_body.ts); then 408. Default 30000. */
  bodyDeadlineMs?: number;
}

/** A running HTTP server. */
export interface HttpMcpServer {
  /** The endpoint URL, e.g. `http://127.0.0.1:8765/mcp`. */
  url: string;
  /** The port actually bound. */
  port: number;
  /** Live MCP sessions. */
  readonly sessionCount: number;
  /** This server's metrics (its own prom-client registry), served at `/metrics`. */
  readonly metrics: ServeMetrics;
  /** True once {@link HttpMcpServer.drain} started: `/readyz` is 503, no new sessions. */
  readonly draining: boolean;
  /** Stop listening, close every session (cleanup confirmed). Rejects on cleanup failure. */
  close(): Promise<void>;
  /**
   * Graceful stop: refuse new sessions (`/readyz` 503, `initialize` 503), wait until no
   * request is open or the drain timeout passed, then {@link HttpMcpServer.close}.
   * Rejects on cleanup failure.
   */
  drain(): Promise<DrainOutcome>;
}

/**
 * Start the Streamable HTTP server. Throws `InvocationError` for a refused bind.
 *
 * @example
 * ```ts
 * import { startHttpServer } from "./http.ts";
 * // const http = await startHttpServer({ bind: { host: "127.0.0.1", port: 0 }, openSource });
 * // console.error(http.url); ... await http.close();
 * ```
 */
export async function startHttpServer(opts: HttpServeOptions): Promise<HttpMcpServer> {
  checkBind(opts.bind, {
    allowRemote: opts.allowRemote ?? false,
    hasToken: opts.token !== undefined,
  });
  const weak = opts.token === undefined
    ? undefined
    : shortTokenWarning(opts.token.length, opts.tokenSource ?? "token");
  if (weak !== undefined) opts.log?.(`warning: ${weak}`);
  const limits = checkSessionLimits(opts);
  const drainTimeoutMs = checkDrainTimeout(opts.drainTimeoutMs);
  const pool = new SessionPool(limits, opts.log);
  const origins = new Set<string>();
  const policy: GuardPolicy = {
    origins,
    // A loopback bind only ever has local clients: a foreign Host is DNS rebinding.
    loopbackHostOnly: !(opts.allowRemote ?? false) || isLoopbackHost(opts.bind.host),
    token: opts.token,
  };
  const metrics = new ServeMetrics({ liveSessions: () => pool.live.size });
  const pending = new PendingConnections<Socket>(opts.maxPendingConnections);
  const clients = new ClientConnections<Socket>(opts.maxConnections);
  const ctx: Ctx = {
    opts,
    pool,
    policy,
    metrics,
    pending,
    clients,
    draining: false,
    open: 0,
    changed: new Set(),
  };
  const server = createServer((req, res) => {
    handle(ctx, req, res).catch(() => sendError(res, 500, -32603, "Internal server error"));
  });
  // Anyone who reaches the port can open connections: those no request passed the
  // guards on are bounded, so they never take the descriptors the tools need.
  server.on("connection", (socket: Socket) => pending.add(socket));
  if (opts.token === undefined) closeForeignPeers(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e) => reject(listenError(e, opts.bind)));
    server.listen(opts.bind.port, opts.bind.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  for (const o of [...loopbackOrigins(port), ...(opts.allowOrigins ?? [])]) {
    origins.add(o.toLowerCase());
  }
  const idleMs = limits.idleTimeoutMs;
  const sweep = setInterval(() => pool.sweepIdle(), Math.max(10, Math.min(60_000, idleMs)));
  (sweep as { unref?: () => void }).unref?.();
  let closing: Promise<void> | undefined;
  const close = () => closing ??= closeAll(server, pool, sweep);
  const host = opts.bind.host.includes(":") ? `[${opts.bind.host}]` : opts.bind.host;
  return {
    url: `http://${host}:${port}${MCP_PATH}`,
    port,
    get sessionCount() {
      return pool.live.size;
    },
    metrics,
    get draining() {
      return ctx.draining;
    },
    close,
    async drain() {
      ctx.draining = true;
      const outcome = await untilQuiet(() => ctx.open, (wake) => {
        ctx.changed.add(wake);
        return () => ctx.changed.delete(wake);
      }, drainTimeoutMs);
      await close();
      return outcome;
    },
  };
}

interface Ctx {
  opts: HttpServeOptions;
  pool: SessionPool;
  policy: GuardPolicy;
  metrics: ServeMetrics;
  /** Connections no request passed the guards on yet. */
  pending: PendingConnections<Socket>;
  /** Connections a request passed the guards on. */
  clients: ClientConnections<Socket>;
  /** Set by `drain()`. */
  draining: boolean;
  /** MCP requests (not `GET` event streams) whose response has not ended. */
  open: number;
  /** Called whenever `open` went down. */
  changed: Set<() => void>;
}

async function handle(ctx: Ctx, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  // Every endpoint, the probes too, is behind the Host/Origin checks (DNS rebinding).
  const site = checkSite(req.headers, ctx.policy);
  if (site) return sendError(res, site.status, -32001, site.message);
  if (answerProbe(req, res, path, () => !ctx.draining)) return;
  if (path !== MCP_PATH && path !== METRICS_PATH) {
    return sendError(res, 404, -32601, `Not found: use ${MCP_PATH}`);
  }
  if (req.method !== "GET") countOpen(ctx, res);
  const refusal = checkRequest(req.headers, ctx.policy);
  if (refusal) {
    if (refusal.status === 401) res.setHeader("WWW-Authenticate", 'Bearer realm="toolhost"');
    return sendError(res, refusal.status, -32001, refusal.message);
  }
  // Without a token, a loopback port is the only gate, and every local user can reach it:
  // only the serving user's own connections pass (peer_uid.ts).
  if (ctx.policy.token === undefined && !(await sameUserPeer(req.socket))) {
    return sendError(res, 403, -32001, FOREIGN_PEER_MESSAGE);
  }
  if (!ctx.clients.admit(req.socket)) return refuseConnection(req, res);
  res.once("close", () => ctx.clients.done(req.socket));
  ctx.pending.admit(req.socket);
  if (path === METRICS_PATH) return await sendMetrics(ctx.metrics, req, res);
  const id = req.headers["mcp-session-id"];
  const sid = Array.isArray(id) ? id[0] : id;
  let body: unknown;
  if (req.method === "POST") {
    const read = await readJsonBody(req, { deadlineMs: ctx.opts.bodyDeadlineMs });
    if (!read.ok) return sendError(res, read.status, read.code, read.message);
    body = read.value;
    if (Array.isArray(body) && body.length === 0) {
      return sendError(res, 400, -32600, "Invalid Request: an empty batch");
    }
  }
  if (sid !== undefined) {
    const s = ctx.pool.live.get(sid);
    if (!s) return sendError(res, 404, -32001, SESSION_GONE);
    // Before the transport maps the ids to this response (request_ids.ts).
    if (req.method === "POST" && reusesRequestId(body, transportOwes(s.transport))) {
      return sendError(res, 400, -32600, REUSED_ID_MESSAGE);
    }
    // A GET event stream may stay open for ever: it is not a call and not activity.
    s.replies?.add(res);
    if (req.method === "GET") return await s.transport.handleRequest(req, res, body);
    return await ctx.pool.track(s, () => s.transport.handleRequest(req, res, body), res);
  }
  if (req.method === "GET") {
    // No event stream without a session. 405 (the protocol's "no SSE stream here") is what
    // a client probing for the legacy HTTP+SSE transport takes as "use Streamable HTTP".
    res.setHeader("Allow", "POST");
    return sendError(res, 405, -32000, "Method not allowed: no session; POST initialize first");
  }
  if (req.method !== "POST" || !isInitializeRequest(body)) {
    return sendError(res, 400, -32000, "Bad Request: no valid session ID; send initialize first");
  }
  if (ctx.draining) {
    res.setHeader("Retry-After", "1");
    return sendError(res, 503, -32000, "This server is draining; initialize again (elsewhere)");
  }
  if (!(await ctx.pool.reserve())) {
    res.setHeader("Retry-After", String(RETRY_AFTER_SECONDS));
    return sendError(res, 503, -32000, "Too many sessions, all busy with calls; retry later");
  }
  try {
    await openSession(ctx, req, res, body);
  } finally {
    ctx.pool.release();
  }
}

async function openSession(ctx: Ctx, req: IncomingMessage, res: ServerResponse, body: unknown) {
  let source: ToolSource;
  try {
    source = ctx.metrics.instrument(await ctx.opts.openSource());
  } catch (e) {
    const msg = e instanceof ToolhostError ? e.message : "the eval could not be opened";
    return sendError(res, 500, -32603, `Cannot open the eval: ${msg}`);
  }
  const pool = ctx.pool;
  const replies = new ReplyBacklog();
  replies.add(res);
  const mcp = createMcpServer(source, { ...ctx.opts, replyBacklog: () => replies.bytes() });
  const session: PoolSession = {
    mcp,
    transport: undefined!,
    lastSeen: Date.now(),
    calls: 0,
    replies,
  };
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => pool.add(id, session),
    onsessionclosed: (id) => void pool.end(id, session),
  });
  session.transport = transport;
  transport.onclose = () => void pool.end(transport.sessionId, session);
  await mcp.connect(transport);
  await pool.track(session, () => transport.handleRequest(req, res, body), res);
  if (transport.sessionId === undefined || !pool.live.has(transport.sessionId)) {
    await pool.end(undefined, session); // initialize failed
  }
}

async function sendMetrics(m: ServeMetrics, req: IncomingMessage, res: ServerResponse) {
  if (req.method !== "GET") return sendError(res, 405, -32600, "Use GET for /metrics");
  const text = await m.expose();
  res.writeHead(200, { "Content-Type": m.contentType, "Cache-Control": "no-store" });
  res.end(text);
}

/** Count `res` open until it ends (or its connection closes). */
function countOpen(ctx: Ctx, res: ServerResponse): void {
  ctx.open++;
  res.once("close", () => {
    ctx.open--;
    for (const wake of [...ctx.changed]) wake();
  });
}

async function closeAll(
  server: Server,
  pool: SessionPool,
  sweep: ReturnType<typeof setInterval>,
): Promise<void> {
  clearInterval(sweep);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const sessions = [...pool.live.entries()];
  const results = await Promise.allSettled(sessions.map(([id, s]) => pool.end(id, s)));
  for (const [, s] of sessions) await s.transport.close().catch(() => {});
  server.closeAllConnections();
  await closed;
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/** 503 and close: every admitted connection has a request open (http_clients.ts). */
function refuseConnection(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader("Retry-After", String(RETRY_AFTER_SECONDS));
  res.setHeader("Connection", "close");
  res.once("finish", () => req.socket.end());
  sendError(res, 503, -32000, "Too many connections, all with a request open; retry later");
}

function sendError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
