/**
 * `toolhost serve --http HOST:PORT`: MCP Streamable HTTP on `/mcp`. Every `initialize`
 * creates a session (`Mcp-Session-Id`) that owns its own tool source — its registry, lazy
 * tool sessions, artifact directory and extension servers — and they end together:
 * on `DELETE`, transport close, idle timeout, or server shutdown (SIGINT/SIGTERM).
 *
 * Guards (see `http_guard.ts`): loopback bind unless `allowRemote`; `Host` must be
 * loopback on a loopback bind; a present `Origin` must be allowed; the bearer token when
 * configured. Refusals are JSON-RPC error bodies with 401/403; unknown sessions get 404.
 *
 * @module
 */

import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
// @ts-types="@modelcontextprotocol/sdk/server/streamableHttp"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { ToolhostError } from "../errors/errors.ts";
import {
  checkBind,
  checkRequest,
  type GuardPolicy,
  isLoopbackHost,
  loopbackOrigins,
} from "./http_guard.ts";
import type { BindAddress } from "./http_guard.ts";
import { createMcpServer, type McpServerOptions, type ToolhostMcpServer } from "./server.ts";
import type { ToolSource } from "./tool_source.ts";

/** The endpoint path. */
export const MCP_PATH = "/mcp";
/** Largest POST body read, bytes. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

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
  /** Required bearer token. Default none. */
  token?: string;
  /** Most concurrent MCP sessions. Default 128. */
  maxSessions?: number;
  /** Close a session after this long without requests, ms. Default 900000 (15 min). */
  idleTimeoutMs?: number;
}

interface Session {
  mcp: ToolhostMcpServer;
  log?: (line: string) => void;
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
  active: number;
  closing?: Promise<void>;
}

/** A running HTTP server. */
export interface HttpMcpServer {
  /** The endpoint URL, e.g. `http://127.0.0.1:8765/mcp`. */
  url: string;
  /** The port actually bound. */
  port: number;
  /** Live MCP sessions. */
  readonly sessionCount: number;
  /** Stop listening, close every session (cleanup confirmed). Rejects on cleanup failure. */
  close(): Promise<void>;
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
  const sessions = new Map<string, Session>();
  const origins = new Set<string>();
  const policy: GuardPolicy = {
    origins,
    // A loopback bind only ever has local clients: a foreign Host is DNS rebinding.
    loopbackHostOnly: !(opts.allowRemote ?? false) || isLoopbackHost(opts.bind.host),
    token: opts.token,
  };
  const ctx = { opts, sessions, policy, pending: 0 };
  const server = createServer((req, res) => {
    handle(ctx, req, res).catch(() => sendError(res, 500, -32603, "Internal server error"));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.bind.port, opts.bind.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  for (const o of [...loopbackOrigins(port), ...(opts.allowOrigins ?? [])]) {
    origins.add(o.toLowerCase());
  }
  const idleMs = opts.idleTimeoutMs ?? 15 * 60 * 1000;
  const sweep = setInterval(() => sweepIdle(sessions, idleMs), Math.min(60_000, idleMs));
  (sweep as { unref?: () => void }).unref?.();
  const host = opts.bind.host.includes(":") ? `[${opts.bind.host}]` : opts.bind.host;
  return {
    url: `http://${host}:${port}${MCP_PATH}`,
    port,
    get sessionCount() {
      return sessions.size;
    },
    close: () => closeAll(server, sessions, sweep),
  };
}

interface Ctx {
  opts: HttpServeOptions;
  sessions: Map<string, Session>;
  policy: GuardPolicy;
  pending: number;
}

async function handle(ctx: Ctx, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  if (path !== MCP_PATH) return sendError(res, 404, -32601, `Not found: use ${MCP_PATH}`);
  const refusal = checkRequest(req.headers, ctx.policy);
  if (refusal) {
    if (refusal.status === 401) res.setHeader("WWW-Authenticate", 'Bearer realm="toolhost"');
    return sendError(res, refusal.status, -32001, refusal.message);
  }
  const id = req.headers["mcp-session-id"];
  const sid = Array.isArray(id) ? id[0] : id;
  let body: unknown;
  if (req.method === "POST") {
    const read = await readJson(req);
    if (!read.ok) return sendError(res, read.status, read.code, read.message);
    body = read.value;
  }
  if (sid !== undefined) {
    const s = ctx.sessions.get(sid);
    if (!s) return sendError(res, 404, -32001, "Session not found");
    return await track(s, () => s.transport.handleRequest(req, res, body));
  }
  if (req.method !== "POST" || !isInitializeRequest(body)) {
    return sendError(res, 400, -32000, "Bad Request: no valid session ID; send initialize first");
  }
  if (ctx.sessions.size + ctx.pending >= (ctx.opts.maxSessions ?? 128)) {
    return sendError(res, 503, -32000, "Too many sessions; close one first");
  }
  await openSession(ctx, req, res, body);
}

async function openSession(ctx: Ctx, req: IncomingMessage, res: ServerResponse, body: unknown) {
  ctx.pending++;
  let source: ToolSource;
  try {
    source = await ctx.opts.openSource();
  } catch (e) {
    const msg = e instanceof ToolhostError ? e.message : "the eval could not be opened";
    return sendError(res, 500, -32603, `Cannot open the eval: ${msg}`);
  } finally {
    ctx.pending--;
  }
  const mcp = createMcpServer(source, ctx.opts);
  const session: Session = {
    mcp,
    log: ctx.opts.log,
    transport: undefined!,
    lastSeen: Date.now(),
    active: 0,
  };
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      ctx.sessions.set(id, session);
      ctx.opts.log?.(`session opened (${ctx.sessions.size} live)`);
    },
    onsessionclosed: (id) => void endSession(ctx.sessions, id, session),
  });
  session.transport = transport;
  transport.onclose = () => void endSession(ctx.sessions, transport.sessionId, session);
  await mcp.connect(transport);
  await track(session, () => transport.handleRequest(req, res, body));
  if (transport.sessionId === undefined || !ctx.sessions.has(transport.sessionId)) {
    await endSession(ctx.sessions, undefined, session); // initialize failed
  }
}

async function track(s: Session, fn: () => Promise<void>): Promise<void> {
  s.active++;
  s.lastSeen = Date.now();
  try {
    await fn();
  } finally {
    s.active--;
    s.lastSeen = Date.now();
  }
}

function endSession(
  sessions: Map<string, Session>,
  id: string | undefined,
  s: Session,
): Promise<void> {
  if (id !== undefined && sessions.get(id) === s) sessions.delete(id);
  s.closing ??= s.mcp.shutdown().then(() => s.log?.(`session closed; cleanup confirmed`));
  return s.closing;
}

function sweepIdle(sessions: Map<string, Session>, idleMs: number): void {
  const now = Date.now();
  for (const [id, s] of sessions) {
    if (s.active === 0 && s.mcp.inFlight === 0 && now - s.lastSeen > idleMs) {
      void endSession(sessions, id, s).catch(() => {});
      void s.transport.close().catch(() => {});
    }
  }
}

async function closeAll(
  server: Server,
  sessions: Map<string, Session>,
  sweep: ReturnType<typeof setInterval>,
): Promise<void> {
  clearInterval(sweep);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const all = [...sessions.entries()].map(([id, s]) => endSession(sessions, id, s));
  const results = await Promise.allSettled(all);
  for (const s of sessions.values()) await s.transport.close().catch(() => {});
  server.closeAllConnections();
  await closed;
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

type JsonRead =
  | { ok: true; value: unknown }
  | { ok: false; status: 400 | 413; code: number; message: string };

async function readJson(req: IncomingMessage): Promise<JsonRead> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Uint8Array).byteLength;
    if (size > MAX_BODY_BYTES) {
      return { ok: false, status: 413, code: -32600, message: "Request body too large" };
    }
    chunks.push(chunk as Uint8Array);
  }
  const text = new TextDecoder().decode(concat(chunks, size));
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, status: 400, code: -32700, message: "Parse error: the body is not JSON" };
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function sendError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
