/** The `resources/read` gate: one read at a time, in order, refused over the backlog. */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import {
  CONNECTION_BACKLOG_BYTES,
  gatedRead,
  processBacklog,
  watchBacklog,
} from "../../lib/mcp/resource_gate.ts";

Deno.test("gate: reads run one at a time, in order", async () => {
  const order: string[] = [];
  let running = 0;
  const read = (name: string) => async () => {
    running++;
    assert.equal(running, 1);
    await new Promise((r) => setTimeout(r, 0));
    order.push(name);
    running--;
    return name;
  };
  const all = await Promise.all(["a", "b", "c"].map((n) => gatedRead(() => 0, undefined, read(n))));
  assert.deepEqual(all, ["a", "b", "c"]);
  assert.deepEqual(order, ["a", "b", "c"]);
});

Deno.test("gate: a connection whose replies are not taken is refused, value-free", async () => {
  let called = false;
  const err = await gatedRead(() => CONNECTION_BACKLOG_BYTES + 1, undefined, () => {
    called = true;
    return Promise.resolve(1);
  }).catch((e) => e);
  assert.ok(err instanceof McpError);
  assert.match(err.message, /not taking its replies/);
  assert.equal(called, false);
  assert.equal(await gatedRead(() => 0, undefined, () => Promise.resolve(2)), 2);
});

Deno.test("gate: an aborted waiter leaves the queue", async () => {
  let release!: () => void;
  const first = gatedRead(undefined, undefined, () => new Promise<void>((r) => release = r));
  const stop = new AbortController();
  const second = gatedRead(undefined, stop.signal, () => Promise.resolve("never"));
  stop.abort(new Error("gone"));
  await assert.rejects(second, /gone/);
  await new Promise((r) => setTimeout(r, 0));
  release();
  await first;
  assert.equal(await gatedRead(undefined, undefined, () => Promise.resolve(3)), 3);
});

Deno.test("gate: watched backlogs add up until unwatched", () => {
  const before = processBacklog();
  const stop = watchBacklog(() => 5);
  assert.equal(processBacklog(), before + 5);
  stop();
  assert.equal(processBacklog(), before);
});
