/**
 * `serve --http`: connections that no request passed the guards on (no token, nothing
 * sent at all) are bounded — past the bound the oldest is closed for each new one — so
 * a flood of idle or slow-header connections cannot take every descriptor of the
 * process (each one otherwise lived until the HTTP header timeout, a minute), and a
 * client holding the token is still served.
 */

import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { startHttpServer } from "../../lib/mcp/http.ts";
import { PendingConnections } from "../../lib/mcp/http_pending.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";
import { INIT_BODY, MCP_POST_HEADERS } from "./_http_serve.ts";

const SOURCE: ToolSource = {
  list: () => Promise.resolve([]),
  call: () => Promise.resolve({ content: [], isError: false }),
  close: () => Promise.resolve(),
};
const TOKEN = "pending-test-token-0123456789";

/** A connection to `port` that sends nothing; `closed` settles when the server closes it. */
async function silent(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  return { socket, closed };
}

Deno.test("serve over HTTP: past the bound, the oldest connection without a passed request is closed", async () => {
  const http = await startHttpServer({
    bind: { host: "127.0.0.1", port: 0 },
    openSource: () => Promise.resolve(SOURCE),
    token: TOKEN,
    maxPendingConnections: 3,
  });
  const flood: { socket: Socket; closed: Promise<void> }[] = [];
  try {
    for (let i = 0; i < 8; i++) flood.push(await silent(http.port));
    // The first five went as the next five came: each is closed by the server, long
    // before any header timeout (the test's own cap is far above what this takes).
    let timer: ReturnType<typeof setTimeout> | undefined;
    const cap = new Promise<"cap">((r) => timer = setTimeout(() => r("cap"), 30_000));
    const first = await Promise.race([Promise.all(flood.slice(0, 5).map((f) => f.closed)), cap]);
    clearTimeout(timer);
    assert.notEqual(first, "cap", "the oldest connections were closed");
    // A client with the token is served all the same, its connection no longer pending.
    const res = await fetch(http.url, {
      method: "POST",
      headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${TOKEN}` },
      body: INIT_BODY,
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  } finally {
    for (const f of flood) f.socket.destroy();
    await http.close();
  }
});

Deno.test("PendingConnections: oldest out first; an admitted connection is not counted", () => {
  const closed: string[] = [];
  const sock = (name: string) => ({ name, destroy: () => closed.push(name), once: () => {} });
  const pending = new PendingConnections(2);
  const [a, b, c, d] = ["a", "b", "c", "d"].map(sock);
  pending.add(a);
  pending.add(b);
  pending.admit(a); // a request passed on `a`: it is a client's
  pending.add(c);
  assert.deepEqual(closed, []);
  pending.add(d);
  assert.deepEqual(closed, ["b"]);
  assert.equal(pending.size, 2);
  assert.throws(() => new PendingConnections(0), { code: "INVALID_INVOCATION" });
});
