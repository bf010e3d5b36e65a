/**
 * The `tools/call` handler registered without the SDK Server's wrapper keeps every check the
 * wrapper made: the hand check of plain results is differential-tested against zod's
 * `CallToolResultSchema` (same acceptance on its shape, same output, same key order), other
 * results still go through zod with the SDK's error, and invalid requests are still refused.
 */

import assert from "node:assert/strict";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  type JSONRPCMessage,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import {
  checkedCallResult,
  plainToolResult,
  setCallToolHandler,
} from "../../lib/mcp/call_tool_handler.ts";

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Key order of every object, depth first: zod rebuilds objects, so order can differ. */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shape);
  if (typeof v === "object" && v !== null) {
    return Object.keys(v).map((k) => [k, shape((v as Record<string, unknown>)[k])]);
  }
  return v === undefined ? "<undefined>" : v;
}

function zodOutcome(r: unknown): { ok: true; data: unknown } | { ok: false; message: string } {
  const z = CallToolResultSchema.safeParse(r);
  return z.success ? { ok: true, data: z.data } : {
    ok: false,
    message: `MCP error ${ErrorCode.InvalidParams}: Invalid tools/call result: ${z.error.message}`,
  };
}

function randomResult(rand: () => number): unknown {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
  const block = (): unknown =>
    pick<() => unknown>([
      () => ({ type: "text", text: "hello" }),
      () => ({ type: "text", text: "" }),
      () => ({ text: "swapped key order", type: "text" }),
      () => ({ type: "text", text: 5 }),
      () => ({ type: "text" }),
      () => ({ type: "text", text: "x", annotations: { priority: 0.5 } }),
      () => ({ type: "text", text: "x", extra: 1 }),
      () => ({ type: "image", data: "aGk=", mimeType: "image/png" }),
      () => ({ type: "resource_link", uri: "toolhost://a", name: "a" }),
      () => Object.assign(Object.create({ inherited: 1 }), { type: "text", text: "proto" }),
      () => null,
      () => "text",
    ])();
  const structured = (): unknown =>
    pick<() => unknown>([
      () => ({ a: 1, b: [1, 2], c: { d: null } }),
      () => ({}),
      () => ({ 2: "x", 1: "y", z: true }),
      () => JSON.parse('{"__proto__": {"polluted": 1}, "y": 2}'),
      () => [1, 2],
      () => null,
      () => "str",
      () => undefined,
      () => new Map([["a", 1]]),
      () => Object.assign(Object.create(null), { n: 1 }),
    ])();
  const r: Record<string, unknown> = {};
  const parts = pick([
    ["content"],
    ["content", "isError"],
    ["content", "structuredContent"],
    ["isError", "content", "structuredContent"],
    ["structuredContent", "content", "isError"],
    ["content", "extra"],
    ["content", "_meta"],
    ["isError"],
    [],
  ]);
  for (const p of parts) {
    if (p === "content") {
      r.content = rand() < 0.1
        ? "not an array"
        : Array.from({ length: Math.floor(rand() * 3) }, block);
    } else if (p === "isError") r.isError = pick([true, false, undefined, "yes", 0]);
    else if (p === "structuredContent") r.structuredContent = structured();
    else if (p === "_meta") r._meta = pick([{}, { progressToken: 1 }, "bad"]);
    else r[p] = 1;
  }
  return rand() < 0.05 ? pick([null, [], "x", 1]) : r;
}

Deno.test("plain results are checked by hand exactly as zod checks them", () => {
  const rand = rng(42);
  let plain = 0;
  let zodOnly = 0;
  for (let i = 0; i < 4000; i++) {
    const r = randomResult(rand);
    const hand = plainToolResult(r);
    const zod = zodOutcome(r);
    if (hand !== null) {
      plain++;
      assert.ok(zod.ok, `zod refuses what the hand check accepts: ${JSON.stringify(r)}`);
      assert.deepEqual(shape(hand), shape(zod.data), JSON.stringify(r));
    } else zodOnly++;
    // The whole check, either way: same data, or the SDK's error.
    let got: { ok: true; data: unknown } | { ok: false; message: string };
    try {
      got = { ok: true, data: checkedCallResult(r, false) };
    } catch (e) {
      assert.ok(e instanceof McpError && e.code === ErrorCode.InvalidParams);
      got = { ok: false, message: e.message };
    }
    if (zod.ok && got.ok) assert.deepEqual(shape(got.data), shape(zod.data));
    else assert.deepEqual(got, zod);
  }
  assert.ok(plain > 300 && zodOnly > 300, `${plain} by hand, ${zodOnly} by zod`);
});

Deno.test("the shapes toolhost builds take the hand check", () => {
  const read: CallToolResult = {
    content: [{ type: "text", text: '{"lines":[]}' }],
    isError: undefined,
    structuredContent: { lines: [] },
  };
  assert.deepEqual(Object.keys(plainToolResult(read)!), [
    "content",
    "structuredContent",
    "isError",
  ]);
  assert.ok(plainToolResult({ content: [{ type: "text", text: "no" }], isError: true }));
  // Resource links (artifacts) and images are zod's.
  assert.equal(
    plainToolResult({ content: [{ type: "resource_link", uri: "toolhost://a", name: "a" }] }),
    null,
  );
});

Deno.test("a task-augmented call's result is still checked as a task creation result", () => {
  assert.throws(
    () => checkedCallResult({ content: [{ type: "text", text: "hi" }] }, true),
    (e: unknown) =>
      e instanceof McpError && e.code === ErrorCode.InvalidParams &&
      e.message.includes("Invalid task creation result"),
  );
});

async function serverWith(
  result: unknown,
): Promise<(m: JSONRPCMessage) => Promise<JSONRPCMessage>> {
  const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } });
  let calls = 0;
  setCallToolHandler(server, () => {
    calls++;
    return Promise.resolve(result as CallToolResult);
  });
  const [client, side] = InMemoryTransport.createLinkedPair();
  await server.connect(side);
  const replies = new Map<unknown, (m: JSONRPCMessage) => void>();
  client.onmessage = (m) => replies.get((m as { id?: unknown }).id)?.(m);
  await client.start();
  const send = (m: JSONRPCMessage) =>
    new Promise<JSONRPCMessage>((resolve) => {
      replies.set((m as { id: unknown }).id, resolve);
      client.send(m);
    });
  await send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    },
  });
  Object.defineProperty(send, "calls", { get: () => calls });
  return send;
}

Deno.test("an invalid tools/call request is refused before the handler runs", async () => {
  const send = await serverWith({ content: [] });
  for (
    const params of [{}, { name: 5 }, { name: "t", arguments: [1] }, { name: "t", arguments: "x" }]
  ) {
    const reply = await send({ jsonrpc: "2.0", id: 1, method: "tools/call", params });
    assert.ok("error" in reply, JSON.stringify(params));
  }
  assert.equal((send as unknown as { calls: number }).calls, 0);
  const ok = await send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "t" } });
  assert.deepEqual((ok as { result?: unknown }).result, { content: [] });
});

Deno.test("an invalid result is answered with the SDK's InvalidParams error", async () => {
  const send = await serverWith({ content: [{ type: "text", text: 5 }] });
  const reply = await send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t" } });
  const error = (reply as { error?: { code: number; message: string } }).error;
  assert.equal(error?.code, ErrorCode.InvalidParams);
  assert.match(error!.message, /Invalid tools\/call result/);
});
