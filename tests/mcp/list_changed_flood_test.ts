/**
 * An extension server that announces `notifications/tools/list_changed` without end must
 * not queue one notice per announcement for an MCP client that is slow to read: at most
 * one is being written while another waits.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../lib/mcp/server.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";

Deno.test("serve: a flood of tool-list changes is coalesced while the client is not reading", async () => {
  const listeners: (() => void)[] = [];
  const source: ToolSource = {
    list: () => Promise.resolve([]),
    call: () => Promise.resolve({ content: [], isError: false }),
    close: () => Promise.resolve(),
    onToolsChanged: (l) => void listeners.push(l),
  };
  const mcp = createMcpServer(source);
  const sent: JSONRPCMessage[] = [];
  let drain = () => {};
  const transport = {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    // A client that has stopped reading: nothing written is ever taken.
    send: (m: JSONRPCMessage) => {
      sent.push(m);
      return new Promise<void>((resolve) => (drain = resolve));
    },
  };
  await mcp.server.connect(transport);
  for (let i = 0; i < 10_000; i++) {
    for (const l of listeners) l();
    if (i % 100 === 0) await new Promise((r) => setTimeout(r, 0));
  }
  await new Promise((r) => setTimeout(r, 0));
  const notices = () =>
    sent.filter((m) => "method" in m && m.method === "notifications/tools/list_changed");
  assert.equal(notices().length, 1, `${notices().length} notices queued`);
  // Once the client reads again, the changes since are announced once more.
  drain();
  await new Promise((r) => setTimeout(r, 0));
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(notices().length, 2);
  drain();
  await mcp.shutdown();
});
