/**
 * A remote extension's answers are parsed by the SDK, which rounds a number longer than a
 * double holds: a protected value inside one (`1<value>5`) would come out as most of
 * itself. The bodies are held before the SDK sees them — a JSON answer whole, an event
 * stream event by event, however the bytes are cut into chunks.
 */

import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { boundedFetch } from "../../lib/extensions/bounded_fetch.ts";
import { heldBody } from "../../lib/extensions/held_body.ts";
import { HELD_EXTENSION_MESSAGE } from "../../lib/extensions/json_rpc_lines.ts";
import { Redactor } from "../../lib/redact/redactor.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { extensionToml } from "../mcp/_helpers.ts";
import { assertNoPart } from "./_helpers.ts";

const NUM = "98765432109876543210";
/** Its digits around a point, one more after: no contiguous value, the parse joins them. */
const SPLIT = `${NUM.slice(0, 5)}.${NUM.slice(5)}5e16`;
const red = new Redactor();
red.add(NUM);

function chunked(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function read(body: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(body).text();
}

/** The JSON of every event's data in an event stream's text (as an SSE parser reads it). */
function eventData(text: string): unknown[] {
  const out: unknown[] = [];
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "") {
      if (data.length > 0) out.push(JSON.parse(data.join("\n")));
      data = [];
    } else if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
  }
  return out;
}

Deno.test("heldBody: JSON bodies and event streams, cut anywhere, hold only what holds a value", async () => {
  const bad = `{"jsonrpc":"2.0","id":7,"result":{"structuredContent":{"n":1${NUM}5}}}`;
  const good = `{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"${NUM}"}]}}`;
  const heldResult = {
    jsonrpc: "2.0",
    id: 7,
    result: { content: [{ type: "text", text: HELD_EXTENSION_MESSAGE }], isError: true },
  };
  for (const size of [1, 3, 7, 64, 4096]) {
    assert.deepEqual(JSON.parse(await read(heldBody(chunked(bad, size), false, red))), heldResult);
    assert.equal(await read(heldBody(chunked(good, size), false, red)), good);
    const batch = await read(heldBody(chunked(`[${bad},${good}]`, size), false, red));
    assert.equal(JSON.parse(batch)[0].id, 7);
    assert.ok(!batch.includes(`1${NUM}`), batch);
    // The value's digits around a point: the parse would join and round them.
    const pointed = bad.replace(`1${NUM}5`, `${SPLIT}`);
    const held = await read(heldBody(chunked(pointed, size), false, red));
    assert.deepEqual(JSON.parse(held), heldResult);
    for (const eol of ["\n", "\r\n", "\r"]) {
      const split = bad.replace(",", `,${eol}data: `); // one message over two data lines
      const stream = `event: message${eol}id: 1${eol}data: ${good}${eol}${eol}` +
        `event: message${eol}data: ${split}${eol}${eol}: comment${eol}${eol}` +
        `data: ${good}${eol}${eol}`;
      const out = await read(heldBody(chunked(stream, size), true, red));
      assert.ok(!out.includes(`1${NUM}`), JSON.stringify({ size, eol, out }));
      assert.deepEqual(eventData(out), [JSON.parse(good), heldResult, JSON.parse(good)]);
    }
  }
});

Deno.test("boundedFetch holds only with a protector that is active", async () => {
  const body = `{"jsonrpc":"2.0","id":1,"result":{"n":[1${NUM}5]}}`;
  const base = () =>
    Promise.resolve(new Response(body, { headers: { "content-type": "application/json" } }));
  const off = await (await boundedFetch(1 << 20, base)("http://x/")).text();
  assert.equal(off, body);
  const idle = await (await boundedFetch(1 << 20, base, () => new Redactor())("http://x/")).text();
  assert.equal(idle, body);
  const on = await (await boundedFetch(1 << 20, base, () => red)("http://x/")).text();
  assert.match(on, /withheld/);
});

/** A Streamable HTTP MCP server answering in JSON, whose call result carries the value. */
async function rawRemote(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => text += c);
    req.on("end", () => {
      if (req.method !== "POST") return res.writeHead(405).end();
      const m = JSON.parse(text);
      if (m.id === undefined) return res.writeHead(202).end();
      const reply = (result: string) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":${result}}`);
      };
      if (m.method === "initialize") {
        reply(JSON.stringify({
          protocolVersion: m.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "raw", version: "1" },
        }));
      } else if (m.method === "tools/list") {
        reply('{"tools":[{"name":"num","description":"num","inputSchema":{"type":"object"}}]}');
      } else reply(`{"content":[],"structuredContent":{"n":[1${NUM}5]}}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

Deno.test("a remote extension's value inside a number is held before the SDK parses it", async () => {
  const remote = await rawRemote();
  const toml = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\n` +
    `audience = "agent"\nextensions = ["rx"]\n\n[plugins]\nenable = ["protected-values"]\n\n` +
    `[plugins.protected-values]\nprovider = "env"\nenv = { deploy = "DEPLOY_TOKEN" }\n` +
    extensionToml("rx", { url: remote.url, timeout_ms: 30000 });
  try {
    await using tmp = await tempWorkspace(toml, { "app/README.md": "# app\n" });
    const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
      stateDir: `${tmp.root}/.state`,
      env: { PATH: "/usr/bin:/bin", DEPLOY_TOKEN: NUM },
      lock: false,
    });
    try {
      const r = await reg.call("num_rx", {});
      assertNoPart(r, NUM.slice(0, 12), "call result");
      assert.ok(!JSON.stringify(r).includes(NUM.slice(2, 10)), JSON.stringify(r));
      assert.equal(r.isError, true, JSON.stringify(r));
      assert.match(JSON.stringify(r), /withheld/);
    } finally {
      await reg.close();
    }
  } finally {
    await remote.close();
  }
});

Deno.test("heldBody: a body held as JSON is held as an event stream too (a client may read it so)", async () => {
  // A stray quote in a comment shifts JSON's string pairing: read whole as JSON, the number
  // sits "inside a string". The SDK reads a GET stream as events whatever its type, and
  // the legacy transport takes any type starting `text/event-stream` (`…-streamX` too).
  const message = `{"jsonrpc":"2.0","id":7,"result":{"structuredContent":{"n":1${NUM}5}}}`;
  for (const eol of ["\n", "\r\n"]) {
    const stream = `: "${eol}event: message${eol}data: ${message}${eol}${eol}: "${eol}${eol}`;
    for (const size of [1, 5, 4096]) {
      const out = await read(heldBody(chunked(stream, size), false, red));
      assert.ok(!out.includes(`1${NUM}`), out);
      for (const data of eventData(out)) assert.ok(!JSON.stringify(data).includes("98765432"));
    }
  }
});
