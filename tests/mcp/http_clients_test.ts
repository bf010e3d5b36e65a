/**
 * `serve --http`: the connections a client holding the token opens are bounded too (the
 * pending ones were, http_pending_test.ts). Before, an authenticated client could open
 * connections until the process had no descriptor left. Past `maxConnections`, the
 * connection idle the longest is closed for a new one; when every one has a request open
 * (a call in flight, an event stream), the new one gets 503 with `Retry-After` and is
 * closed — and the requests already open are served to the end.
 */

import assert from "node:assert/strict";
import { Agent, type IncomingMessage, request } from "node:http";
import type { Socket } from "node:net";
import { startHttpServer } from "../../lib/mcp/http.ts";
import { ClientConnections } from "../../lib/mcp/http_clients.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { INIT_BODY, MCP_POST_HEADERS } from "./_http_serve.ts";

const TOKEN = "clients-test-token-0123456789";
const AUTH = { authorization: `Bearer ${TOKEN}` };

/** One client connection: an agent that keeps exactly one socket. */
class Conn {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  socket: Socket | undefined;
  closed: Promise<void> | undefined;

  constructor(readonly url: string) {}

  /** Send a request; resolves with the response once its headers arrived. */
  send(method: string, headers: Record<string, string>, body?: string): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = request(this.url, {
        method,
        headers: { ...AUTH, ...headers },
        agent: this.agent,
      });
      req.on("socket", (s: Socket) => {
        if (this.socket === s) return;
        this.socket = s;
        this.closed = new Promise((r) => s.once("close", () => r()));
      });
      req.on("response", resolve);
      req.on("error", reject);
      req.end(body);
    });
  }
}

async function text(res: IncomingMessage): Promise<string> {
  let out = "";
  for await (const chunk of res) out += new TextDecoder().decode(chunk as Uint8Array);
  return out;
}

Deno.test("serve over HTTP: a client's connections are bounded; open requests are never cut", async () => {
  const release: (() => void)[] = [];
  const source: ToolSource = {
    list: () => Promise.resolve([]),
    call: () =>
      new Promise<ToolResult>((resolve) =>
        release.push(() => resolve({ content: [{ type: "text", text: "done" }], isError: false }))
      ),
    close: () => Promise.resolve(),
  };
  const http = await startHttpServer({
    bind: { host: "127.0.0.1", port: 0 },
    openSource: () => Promise.resolve(source),
    token: TOKEN,
    maxConnections: 2,
  });
  const conns = Array.from({ length: 4 }, () => new Conn(http.url));
  try {
    // A: initialize, then idle (keep-alive).
    const init = await conns[0].send("POST", MCP_POST_HEADERS, INIT_BODY);
    const sid = init.headers["mcp-session-id"] as string;
    await text(init);
    const session = { ...MCP_POST_HEADERS, "mcp-session-id": sid };
    const note = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
    await text(await conns[0].send("POST", session, note));
    // B: a call in flight (held by the source).
    const call = (id: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "x", arguments: {} },
      });
    const pendingB = conns[1].send("POST", session, call(2));
    while (release.length < 1) await new Promise((r) => setTimeout(r, 10));
    // C: at the bound, A (idle) is closed to make room; C is served.
    const c = await conns[2].send("POST", session, call(3));
    assert.equal(c.statusCode, 200);
    while (release.length < 2) await new Promise((r) => setTimeout(r, 10));
    // D: B and C both have a request open: 503 with Retry-After, and closed.
    const d = await conns[3].send("POST", session, call(4));
    assert.equal(d.statusCode, 503);
    assert.equal(d.headers["retry-after"], "5");
    assert.match(await text(d), /Too many connections/);
    await conns[3].closed;
    await conns[0].closed; // A went for C
    // The open requests are served to the end.
    for (const r of release) r();
    const b = await pendingB;
    assert.equal(b.statusCode, 200);
    assert.match(await text(b), /done/);
    assert.match(await text(c), /done/);
  } finally {
    for (const c of conns) c.agent.destroy();
    await http.close();
  }
});

Deno.test("ClientConnections: idle longest closed first; refused when all are busy", () => {
  const closed: string[] = [];
  const sock = (name: string) => ({ name, destroy: () => closed.push(name), once: () => {} });
  const clients = new ClientConnections(2);
  const [a, b, c, d] = ["a", "b", "c", "d"].map(sock);
  assert.ok(clients.admit(a));
  assert.ok(clients.admit(b));
  clients.done(b); // b idle first
  clients.done(a); // then a
  assert.ok(clients.admit(a)); // a request again on a: not a new connection
  assert.ok(clients.admit(c)); // b, idle, goes
  assert.deepEqual(closed, ["b"]);
  assert.equal(clients.admit(d), false); // a and c busy
  assert.equal(clients.size, 2);
  assert.throws(() => new ClientConnections(0), { code: "INVALID_INVOCATION" });
});

Deno.test("serve over HTTP: one event stream per session (a second GET is 409)", async () => {
  const source: ToolSource = {
    list: () => Promise.resolve([]),
    call: () => Promise.resolve({ content: [], isError: false }),
    close: () => Promise.resolve(),
  };
  const http = await startHttpServer({
    bind: { host: "127.0.0.1", port: 0 },
    openSource: () => Promise.resolve(source),
    token: TOKEN,
  });
  const conns = Array.from({ length: 3 }, () => new Conn(http.url));
  try {
    const init = await conns[0].send("POST", MCP_POST_HEADERS, INIT_BODY);
    const sid = init.headers["mcp-session-id"] as string;
    await text(init);
    const note = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
    const session = { ...MCP_POST_HEADERS, "mcp-session-id": sid };
    await text(await conns[0].send("POST", session, note));
    const sse = { accept: "text/event-stream", "mcp-session-id": sid };
    const first = await conns[1].send("GET", sse);
    assert.equal(first.statusCode, 200);
    const second = await conns[2].send("GET", sse);
    assert.equal(second.statusCode, 409);
    await text(second);
    first.destroy();
  } finally {
    for (const c of conns) c.agent.destroy();
    await http.close();
  }
});
