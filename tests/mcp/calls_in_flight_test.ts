/**
 * One connection runs at most `maxCallsInFlight` tool calls at once (default 64). Before
 * the bound, one Streamable HTTP batch of 100 `tools/call` requests for a slow tool
 * started 100 tool processes at once (a 4 MiB batch: tens of thousands), and so did one
 * pipelined stdio write; a call past the bound now gets an error result without starting.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer, MAX_CALLS_IN_FLIGHT } from "../../lib/mcp/server.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";
import { waitFor } from "./_helpers.ts";

type Text = { type: string; text: string };

/** A source whose calls run until released; counts the calls it started. */
function gatedSource() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const state = { started: 0, release };
  const source: ToolSource = {
    list: () =>
      Promise.resolve([{ name: "slow", description: "", inputSchema: { type: "object" } }]),
    call: async () => {
      state.started++;
      await gate;
      return { content: [{ type: "text", text: "done" }], isError: false };
    },
    close: () => Promise.resolve(),
  };
  return { source, state };
}

async function connected(source: ToolSource, max?: number) {
  const mcp = createMcpServer(source, max === undefined ? {} : { maxCallsInFlight: max });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await mcp.connect(a);
  const c = new Client({ name: "t", version: "1" });
  await c.connect(b);
  return { mcp, c };
}

Deno.test("calls past maxCallsInFlight are refused without starting; a finished call frees room", async () => {
  const { source, state } = gatedSource();
  const { mcp, c } = await connected(source);
  const call = () => c.callTool({ name: "slow", arguments: {} }, undefined, { timeout: 600_000 });
  const running = Array.from({ length: MAX_CALLS_IN_FLIGHT }, call);
  assert.ok(await waitFor(() => state.started === MAX_CALLS_IN_FLIGHT), `${state.started}`);
  const refused = await call();
  assert.equal(refused.isError, true);
  assert.match((refused.content as Text[])[0].text, /^Too many calls in flight/);
  assert.equal(state.started, MAX_CALLS_IN_FLIGHT); // the refused call started nothing
  state.release();
  for (const r of await Promise.all(running)) assert.equal(r.isError, false);
  assert.equal((await call()).isError, false); // room again
  await c.close();
  await mcp.shutdown();
});

Deno.test("maxCallsInFlight is per connection and configurable", async () => {
  const { source, state } = gatedSource();
  const one = await connected(source, 2);
  const two = await connected(source, 2);
  const call = (c: Client) => c.callTool({ name: "slow", arguments: {} });
  const running = [call(one.c), call(one.c), call(two.c), call(two.c)];
  assert.ok(await waitFor(() => state.started === 4), `${state.started}`);
  assert.equal((await call(one.c)).isError, true);
  assert.equal((await call(two.c)).isError, true);
  state.release();
  await Promise.all(running);
  for (const x of [one, two]) {
    await x.c.close();
    await x.mcp.shutdown();
  }
});
