/**
 * Adversarial remote extensions: a hand-written Streamable HTTP server whose answers are
 * endless, or that streams requests and never answers toolhost's answers. What toolhost
 * reads from it, and the connections it opens to it, must stay bounded.
 */
import assert from "node:assert/strict";
import { ExtensionHost } from "../../lib/extensions/host.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { extensionToml } from "./_helpers.ts";

const TOTAL = 64 * 1024 * 1024;
const CHUNK = new TextEncoder().encode("a".repeat(64 * 1024));

/** A body of `head`, then 64 MiB of `a` with no line end, then nothing more (held open). */
function endless(head: string, sent: { bytes: number }): ReadableStream<Uint8Array> {
  let started = false;
  return new ReadableStream({
    pull(c) {
      if (!started) {
        started = true;
        c.enqueue(new TextEncoder().encode(head));
      } else if (sent.bytes < TOTAL) {
        sent.bytes += CHUNK.byteLength;
        c.enqueue(CHUNK);
      } else return new Promise(() => {}); // held open: only the client can end it
    },
  });
}

/** `count` ping requests as events, then nothing more: held open until `held` is run. */
function pings(count: number, held: (() => void)[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i >= count) {
        return new Promise((resolve) => held.push(() => resolve(c.close())));
      }
      const ping = { jsonrpc: "2.0", id: `p${i++}`, method: "ping" };
      c.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(ping)}\n\n`));
    },
  });
}

/**
 * The server: answers initialize and tools/list; every tools/call answer is `endless`,
 * or with `"pings"` 2,000 ping requests, whose answers it takes and never responds to.
 */
function hostileServer(kind: "sse" | "json" | "pings") {
  const sent = { bytes: 0, unanswered: 0 };
  const held: (() => void)[] = []; // answers never given until the test ends
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    if (req.method !== "POST") return new Response(null, { status: 405 });
    const m = await req.json();
    if (m.method === undefined) {
      sent.unanswered++;
      return await new Promise<Response>((resolve) =>
        held.push(() => resolve(new Response(null, { status: 202 })))
      );
    }
    if (m.id === undefined) return new Response(null, { status: 202 });
    const json = (result: unknown) =>
      Response.json({ jsonrpc: "2.0", id: m.id, result }, {
        headers: { "mcp-session-id": "s1" },
      });
    if (m.method === "initialize") {
      return json({
        protocolVersion: m.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "hostile", version: "1" },
      });
    }
    if (m.method === "tools/list") {
      return json({ tools: [{ name: "big", inputSchema: { type: "object" } }] });
    }
    if (kind === "pings") {
      return new Response(pings(2000, held), { headers: { "content-type": "text/event-stream" } });
    }
    const sse = kind === "sse";
    const head = sse ? "data: " : `{"jsonrpc":"2.0","id":${m.id},"result":{"content":[],"x":"`;
    return new Response(endless(head, sent), {
      headers: { "content-type": sse ? "text/event-stream" : "application/json" },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    sent,
    close: () => {
      for (const answer of held) answer();
      return server.shutdown();
    },
  };
}

for (const kind of ["sse", "json"] as const) {
  Deno.test(`a remote extension's endless ${kind} answer is cut off, not buffered`, async () => {
    const server = hostileServer(kind);
    await using tmp = await tempWorkspace(
      `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\nextensions = ["rx"]\n` +
        extensionToml("rx", { url: server.url, timeout_ms: 60000 }),
      { "app/README.md": "# app\n" },
    );
    const host = ExtensionHost.forEval(await loadWorkspace(tmp.root), "app/review");
    try {
      assert.deepEqual((await host.list()).map((t) => t.name), ["big_rx"]);
      const r = await host.call("big_rx", {});
      assert.equal(r.isError, true);
      assert.doesNotMatch((r.content[0] as { text: string }).text, /did not answer within/);
      // Read up to the bound and then cancelled: the server never got to send it all.
      assert.ok(server.sent.bytes < TOTAL, `${server.sent.bytes} bytes were read`);
    } finally {
      await host.close();
      await server.close();
    }
  });
}

Deno.test("a remote extension that never answers toolhost's answers is disconnected", async () => {
  const server = hostileServer("pings");
  await using tmp = await tempWorkspace(
    `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\nextensions = ["rx"]\n` +
      extensionToml("rx", { url: server.url, timeout_ms: 60000 }),
    { "app/README.md": "# app\n" },
  );
  const host = ExtensionHost.forEval(await loadWorkspace(tmp.root), "app/review");
  try {
    await host.list();
    const r = await host.call("big_rx", {});
    assert.equal(r.isError, true);
    assert.doesNotMatch((r.content[0] as { text: string }).text, /did not answer within/);
    // At most MAX_SENDS_IN_FLIGHT answers were being sent at once, not one per ping.
    assert.ok(server.sent.unanswered <= 256 + 8, `${server.sent.unanswered} POSTs were opened`);
  } finally {
    await host.close();
    await server.close();
  }
});
