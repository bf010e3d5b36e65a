/**
 * The shorter route for incoming messages (lib/mcp/request_route.ts) is differential-tested
 * against the SDK's own sorting: the same messages — valid and invalid requests,
 * notifications, stray responses, malformed shapes — go through a server connected with
 * the route and one connected without it (a transport that already has a handler keeps
 * the SDK's path), and every byte written back and every error reported must be the same.
 */

import assert from "node:assert/strict";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../lib/mcp/server.ts";
import { requestRoute } from "../../lib/mcp/request_route.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";
import { errorResult, jsonResult, textResult } from "../../lib/results/types.ts";

function source(): ToolSource {
  return {
    list: () =>
      Promise.resolve([
        {
          name: "echo",
          description: "Echo.",
          inputSchema: { type: "object", properties: { s: { type: "string" } } },
        },
      ] as unknown as Awaited<ReturnType<ToolSource["list"]>>),
    call: async (name, args) => {
      await Promise.resolve();
      if (name === "echo") return textResult(JSON.stringify(args));
      if (name === "json") return jsonResult({ a: 1, s: 'q"\n' });
      return errorResult(`unknown tool ${name}`);
    },
    close: () => Promise.resolve(),
  };
}

/** Raw messages as a stdio transport would deliver them (parsed JSON lines). */
const MESSAGES: unknown[] = [
  {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 1, method: "tools/list" },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { s: "x" } } },
  { jsonrpc: "2.0", id: "s-3", method: "tools/call", params: { name: "json", arguments: {} } },
  { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "nope" } },
  { jsonrpc: "2.0", id: 5, method: "tools/call", params: { arguments: {} } },
  { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "echo", arguments: 7 } },
  { jsonrpc: "2.0", id: 7, method: "tools/call" },
  { jsonrpc: "2.0", id: 8, method: "no/such/method", params: {} },
  { jsonrpc: "2.0", id: 9, method: "ping" },
  { jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "echo" }, extra: 1 },
  { jsonrpc: "2.0", id: 11.5, method: "ping" },
  { jsonrpc: "2.0", id: 12, method: 5 },
  { jsonrpc: "1.0", id: 13, method: "ping" },
  { jsonrpc: "2.0", id: null, method: "ping" },
  { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } },
  { jsonrpc: "2.0", method: "notifications/unknown", params: { a: 1 } },
  { jsonrpc: "2.0", method: "notifications/initialized", extra: true },
  { jsonrpc: "2.0", id: 14, result: {} },
  { jsonrpc: "2.0", id: 15, error: { code: -1, message: "m" } },
  { jsonrpc: "2.0", id: 16, method: "ping", result: {} },
  { jsonrpc: "2.0", id: 17, method: "ping", error: { code: 1, message: "x" } },
  { jsonrpc: "2.0" },
  {
    jsonrpc: "2.0",
    id: 18,
    method: "tools/call",
    params: { name: "echo", arguments: { s: "y" }, _meta: { progressToken: "p" } },
  },
  { jsonrpc: "2.0", id: 19, method: "resources/list" },
];

interface Run {
  out: string[];
  errors: string[];
}

async function run(withRoute: boolean): Promise<Run> {
  const mcp = createMcpServer(source(), { spliceMirrors: true });
  const out: string[] = [];
  const errors: string[] = [];
  const transport: Transport = {
    start: () => Promise.resolve(),
    send: (message: JSONRPCMessage) => {
      out.push(mcp.serialize(message));
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
  // A handler the transport already has keeps the SDK's own sorting of messages.
  if (!withRoute) transport.onmessage = () => {};
  mcp.server.onerror = (e) => errors.push(`${e.name}: ${e.message}`);
  await mcp.connect(transport);
  let pingId = 1000;
  for (const m of MESSAGES) {
    const before = out.length;
    transport.onmessage!(m as JSONRPCMessage);
    // A ping after each message: its answer comes once everything before it settled.
    const id = pingId++;
    transport.onmessage!({ jsonrpc: "2.0", id, method: "ping" } as JSONRPCMessage);
    const tail = `"id":${id}}\n`;
    while (!out.slice(before).some((line) => line.endsWith(tail))) {
      await new Promise((r) => setTimeout(r, 0));
    }
    // And the answer to the message itself, when it is a request that gets one.
    while (out.length === before + 1 && hasAnswer(m)) await new Promise((r) => setTimeout(r, 0));
  }
  await mcp.shutdown();
  return { out, errors };
}

/** Valid-looking requests (an id and a method) are answered; the rest are not. */
function hasAnswer(m: unknown): boolean {
  const o = m as Record<string, unknown>;
  return typeof o.method === "string" && (typeof o.id === "number" || typeof o.id === "string") &&
    o.jsonrpc === "2.0" && Number.isInteger(o.id === "s-3" ? 0 : o.id) && !("extra" in o) &&
    !("result" in o) && !("error" in o);
}

Deno.test("the shorter route answers every message byte for byte as the SDK does", async () => {
  const plain = await run(false);
  const routed = await run(true);
  assert.ok(plain.out.length > MESSAGES.length, "the SDK path answered the requests");
  assert.ok(plain.errors.length >= 4, "malformed messages were reported");
  assert.deepEqual(routed.out, plain.out);
  assert.deepEqual(routed.errors, plain.errors);
});

Deno.test("the route is used with the pinned SDK, and steps aside for anything but a method", () => {
  const server = new Server({ name: "t", version: "1" }, { capabilities: {} });
  const route = requestRoute(server);
  assert.ok(route, "the SDK's protocol methods were not found");
  assert.equal(route({ jsonrpc: "2.0", id: 1, result: {} } as JSONRPCMessage, {}), false);
  assert.equal(route({ jsonrpc: "2.0", id: 1, method: 3 } as unknown as JSONRPCMessage, {}), false);
  assert.equal(requestRoute({}), undefined);
});
