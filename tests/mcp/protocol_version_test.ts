/**
 * `structuredContent` goes only to clients whose protocol version has it (2025-06-18 on):
 * "json → text holding compact JSON plus structuredContent where the client supports it".
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../lib/mcp/server.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";

const source: ToolSource = {
  list: () =>
    Promise.resolve([{ name: "info", description: "d", inputSchema: { type: "object" } }]),
  call: () => Promise.resolve({ content: [{ type: "json", data: { n: 2 } }], isError: false }),
  close: () => Promise.resolve(),
};

async function callWith(version: string): Promise<Record<string, unknown>> {
  const mcp = createMcpServer(source);
  const [client, server] = InMemoryTransport.createLinkedPair();
  await mcp.connect(server);
  const replies = new Map<unknown, JSONRPCMessage>();
  client.onmessage = (m) => {
    if ("id" in m) replies.set(m.id, m);
  };
  await client.start();
  const ask = async (id: number, method: string, params: Record<string, unknown>) => {
    await client.send({ jsonrpc: "2.0", id, method, params });
    for (const end = Date.now() + 60_000; !replies.has(id) && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 5));
    }
    return replies.get(id) as { result: Record<string, unknown> };
  };
  try {
    const init = await ask(1, "initialize", {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    });
    await client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const answered = init.result.protocolVersion as string;
    const res = await ask(2, "tools/call", { name: "info", arguments: {} });
    return { answered, ...res.result };
  } finally {
    await mcp.shutdown();
  }
}

Deno.test("structuredContent only for protocol versions that have it", async () => {
  for (const v of ["2024-11-05", "2025-03-26"]) {
    const r = await callWith(v);
    assert.equal(r.answered, v);
    assert.deepEqual(r.content, [{ type: "text", text: '{"n":2}' }]);
    assert.equal("structuredContent" in r, false, v);
  }
  for (const v of ["2025-06-18", "2025-11-25", "1999-01-01" /* unknown → latest */]) {
    const r = await callWith(v);
    assert.deepEqual(r.content, [{ type: "text", text: '{"n":2}' }]);
    assert.deepEqual(r.structuredContent, { n: 2 }, v);
  }
});

Deno.test("a source whose tools change makes the server advertise and send list_changed", async () => {
  let changed: (() => void) | undefined;
  const changing: ToolSource = { ...source, onToolsChanged: (l) => (changed = l) };
  const { Client } = await import("@modelcontextprotocol/sdk/client");
  const { ToolListChangedNotificationSchema } = await import(
    "@modelcontextprotocol/sdk/types.js"
  );
  for (const [src, advertised] of [[source, false], [changing, true]] as const) {
    const mcp = createMcpServer(src);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await mcp.connect(a);
    const client = new Client({ name: "t", version: "1" });
    let notices = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notices++;
    });
    await client.connect(b);
    try {
      assert.equal(client.getServerCapabilities()?.tools?.listChanged, advertised);
      if (advertised) {
        changed!();
        for (const end = Date.now() + 60_000; notices === 0 && Date.now() < end;) {
          await new Promise((r) => setTimeout(r, 5));
        }
        assert.equal(notices, 1);
      }
    } finally {
      await client.close();
      await mcp.shutdown();
    }
  }
});
