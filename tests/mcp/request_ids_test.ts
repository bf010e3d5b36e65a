/**
 * A request whose id is in flight already on the connection is refused (`-32600`) and
 * runs nothing. Before, the SDK keyed the second over the first: over Streamable HTTP the
 * first call's response went to the second request's stream and its own stream stayed
 * open for ever; on any transport `notifications/cancelled` for that id aborted the
 * second call, and the first could no longer be cancelled.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { startHttpServer } from "../../lib/mcp/http.ts";
import { createMcpServer } from "../../lib/mcp/server.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";
import { INIT_BODY, MCP_POST_HEADERS } from "./_http_serve.ts";
import { waitFor } from "./_helpers.ts";

/** A source whose calls run until released (or aborted); records their signals. */
function gatedSource() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const signals: AbortSignal[] = [];
  const source: ToolSource = {
    list: () =>
      Promise.resolve([{ name: "slow", description: "", inputSchema: { type: "object" } }]),
    call: async (_name, _args, opts) => {
      signals.push(opts?.signal ?? new AbortController().signal);
      await Promise.race([
        gate,
        new Promise((r) => opts?.signal?.addEventListener("abort", r, { once: true })),
      ]);
      return { content: [{ type: "text", text: "done" }], isError: false };
    },
    close: () => Promise.resolve(),
  };
  return { source, signals, release: () => release() };
}

const call = (id: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "slow", arguments: {} },
});

/** `promise`, or "cap" when it has not settled after a generous wait. */
async function capped<T>(promise: Promise<T>, ms = 30_000): Promise<T | "cap"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cap = new Promise<"cap">((r) => timer = setTimeout(() => r("cap"), ms));
  try {
    return await Promise.race([promise, cap]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("serve over HTTP: a request reusing an id in flight is refused; the first still answers", async () => {
  const gated = gatedSource();
  const http = await startHttpServer({
    bind: { host: "127.0.0.1", port: 0 },
    openSource: () => Promise.resolve(gated.source),
  });
  try {
    const init = await fetch(http.url, {
      method: "POST",
      headers: MCP_POST_HEADERS,
      body: INIT_BODY,
    });
    await init.body?.cancel();
    const headers = {
      ...MCP_POST_HEADERS,
      "mcp-session-id": init.headers.get("mcp-session-id")!,
      "mcp-protocol-version": "2025-06-18",
    };
    const post = (body: unknown) =>
      fetch(http.url, { method: "POST", headers, body: JSON.stringify(body) });
    const first = await post(call(5));
    assert.ok(await waitFor(() => gated.signals.length === 1));
    for (const body of [{ jsonrpc: "2.0", id: 5, method: "ping" }, [call(6), call(6)]]) {
      const again = await post(body);
      assert.equal(again.status, 400);
      assert.equal((await again.json()).error.code, -32600);
    }
    assert.equal(gated.signals.length, 1); // nothing else ran
    gated.release();
    const text = await capped(first.text());
    assert.notEqual(text, "cap", "the first request's stream ended");
    assert.match(text as string, /"id":5/);
    assert.match(text as string, /done/);
  } finally {
    await http.close();
  }
});

Deno.test("a request reusing an id in flight is refused; cancelling that id still cancels the first", async () => {
  const gated = gatedSource();
  const mcp = createMcpServer(gated.source);
  const [server, client] = InMemoryTransport.createLinkedPair();
  await mcp.connect(server);
  const got: JSONRPCMessage[] = [];
  client.onmessage = (m) => void got.push(m);
  await client.start();
  await client.send(JSON.parse(INIT_BODY));
  await client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await client.send(call(5));
  assert.ok(await waitFor(() => gated.signals.length === 1));
  await client.send(call(5));
  assert.ok(await waitFor(() => got.some((m) => "error" in m && m.id === 5)));
  const refused = got.find((m) => "error" in m && m.id === 5) as { error: { code: number } };
  assert.equal(refused.error.code, -32600);
  assert.equal(gated.signals.length, 1); // the second never ran
  await client.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 5 },
  });
  assert.ok(await waitFor(() => gated.signals[0].aborted), "the first call was cancelled");
  await client.close();
  await mcp.shutdown();
});
