/**
 * A client that never reads its replies cannot make the process hold one tool result
 * after another: above `CONNECTION_BACKLOG_BYTES` of unsent replies on its connection, a
 * call is refused without starting, and a result ready then is answered with a short
 * error instead. Before, only `resources/read` looked at the backlog: a token holder that
 * called a tool with a large result (up to 8 MiB) over and over on responses it never read
 * made serve hold them all.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer } from "../../lib/mcp/server.ts";
import { CONNECTION_BACKLOG_BYTES } from "../../lib/mcp/resource_gate.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";
import { waitFor } from "./_helpers.ts";

type Text = { type: string; text: string };

Deno.test("tools/call: refused above the connection's unsent reply bytes; a late result too", async () => {
  let backlog = 0;
  let release: () => void = () => {};
  const state = { started: 0, gated: false };
  const source: ToolSource = {
    list: () =>
      Promise.resolve([{ name: "big", description: "", inputSchema: { type: "object" } }]),
    call: async () => {
      state.started++;
      if (state.gated) await new Promise<void>((r) => release = r);
      return { content: [{ type: "text", text: "x".repeat(1000) }], isError: false };
    },
    close: () => Promise.resolve(),
  };
  const mcp = createMcpServer(source, { replyBacklog: () => backlog });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await mcp.connect(a);
  const c = new Client({ name: "t", version: "1" });
  await c.connect(b);
  try {
    const call = () => c.callTool({ name: "big", arguments: {} });
    assert.equal((await call()).isError, false);
    backlog = CONNECTION_BACKLOG_BYTES + 1;
    const refused = await call();
    assert.equal(refused.isError, true);
    assert.match((refused.content as Text[])[0].text, /replies its client has not read/);
    assert.equal(state.started, 1, "the refused call started nothing");
    // A call that started in time, whose result is ready once the client stopped reading.
    backlog = 0;
    state.gated = true;
    const late = call();
    assert.ok(await waitFor(() => state.started === 2));
    backlog = CONNECTION_BACKLOG_BYTES + 1;
    release();
    const r = await late;
    assert.equal(r.isError, true);
    assert.doesNotMatch((r.content as Text[])[0].text, /xxx/);
    backlog = 0;
    state.gated = false;
    assert.equal((await call()).isError, false); // read again: served again
  } finally {
    await c.close();
    await mcp.shutdown();
  }
});
