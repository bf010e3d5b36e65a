/**
 * `serve` on stdio answers `initialize` and `tools/list` before the MCP SDK is loaded
 * (lib/mcp/early_answers.ts, stdio_front.ts). Differential tests against the SDK:
 * - every `initialize` line of a corpus that the early path takes is one the SDK's
 *   schema accepts, and its early answer is byte for byte the SDK server's;
 * - the early `tools/list` answer is the SDK server's;
 * - the copied constants are the SDK's;
 * - a whole stdio session (early answers, the hand-over to the SDK, held and later lines)
 *   writes exactly the lines the SDK-only transport writes for the same input.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { PassThrough } from "node:stream";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import {
  serializeMessage as sdkSerialize,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
} from "@modelcontextprotocol/sdk/shared/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  InitializeRequestSchema,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import * as early from "../../lib/mcp/early_answers.ts";
import { serializeMessage } from "../../lib/extensions/line_framing.ts";
import { STDIO_MAX_BUFFER_BYTES } from "../../lib/mcp/line_buffer.ts";
import { createMcpServer } from "../../lib/mcp/server.ts";
import { serveStdio } from "../../lib/mcp/stdio.ts";
import { StdioServerStreamTransport } from "../../lib/mcp/stdio_transport.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";
import { ArtifactStore } from "../../lib/artifacts/store.ts";

const INSTRUCTIONS = "Tools of the toolhost eval app/review.";

function source(withArtifacts: boolean): ToolSource {
  return {
    list: () =>
      Promise.resolve([
        { name: "info", description: "d \u00e9\u2028", inputSchema: { type: "object" } },
        {
          name: "bare",
          description: "",
          inputSchema: { type: "object", properties: { a: { type: "string" } } },
        },
      ]),
    call: () => Promise.resolve({ content: [{ type: "json", data: { n: 2 } }], isError: false }),
    close: () => Promise.resolve(),
    ...(withArtifacts ? { artifacts: new ArtifactStore() } : {}),
  };
}

const INIT = (params: string, id = "1") =>
  `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":${params}}`;
const INFO = '"clientInfo":{"name":"c","version":"1"}';

const INITIALIZE_LINES = [
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{},${INFO}}`),
  INIT(`{"protocolVersion":"2024-11-05","capabilities":{},${INFO}}`, '"s-1"'),
  INIT(`{"protocolVersion":"1999-01-01","capabilities":{},${INFO}}`),
  INIT(`{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},${INFO}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},${INFO}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},${INFO}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{"sampling":{"tools":{}}},${INFO}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},${INFO}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{"form":{}}},${INFO}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{"experimental":{"x":{}}},${INFO}}`),
  INIT(
    `{"capabilities":{},"clientInfo":{"name":"c","version":"1","title":"T"},"protocolVersion":"x"}`,
  ),
  // Not taken early (the SDK decides): odd shapes, invalid ones, _meta, other keys.
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":1}},${INFO}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{"roots":[]},${INFO}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{"tasks":{}},${INFO}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{"sampling":{"x":1}},${INFO}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{"form":{"a":1}}},${INFO}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":null,${INFO}}`),
  INIT(`{"protocolVersion":5,"capabilities":{},${INFO}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c"}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":1}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1",
    "icons":[]}}`.replace("\n    ", "")),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{},${INFO},"_meta":{}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{},${INFO},"extra":1}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{"__proto__":{}},${INFO}}`),
  INIT(`{"protocolVersion":"2025-06-18","capabilities":{}}`),
  `{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocolVersion":"x"}}`,
  `{"jsonrpc":"2.0","method":"initialize","params":{}}`,
];

/** The SDK server's answer to `line` as the JSON line it would write. */
async function sdkAnswer(src: ToolSource, line: string): Promise<string> {
  const mcp = createMcpServer(src, { instructions: INSTRUCTIONS });
  const [client, server] = InMemoryTransport.createLinkedPair();
  await mcp.connect(server);
  let reply: JSONRPCMessage | undefined;
  client.onmessage = (m) => void (reply ??= m);
  await client.start();
  try {
    await client.send(JSON.parse(line));
    for (const end = Date.now() + 60_000; reply === undefined && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 2));
    }
    return sdkSerialize(reply!);
  } finally {
    await mcp.shutdown();
  }
}

Deno.test("the constants copied from the SDK are the SDK's", () => {
  assert.equal(early.LATEST_PROTOCOL_VERSION, LATEST_PROTOCOL_VERSION);
  assert.deepEqual(early.SUPPORTED_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS);
  assert.equal(STDIO_MAX_BUFFER_BYTES, STDIO_DEFAULT_MAX_BUFFER_SIZE);
  for (const m of [{ jsonrpc: "2.0", id: 1, result: { a: "\u2028\u00e9" } }, { a: [1, null] }]) {
    assert.equal(serializeMessage(m as JSONRPCMessage), sdkSerialize(m as JSONRPCMessage));
  }
});

Deno.test("an early initialize answer is one the SDK accepts and answers byte for byte", async () => {
  let taken = 0;
  for (const withArtifacts of [false, true]) {
    const src = source(withArtifacts);
    const caps = early.serverCapabilities(src);
    for (const line of INITIALIZE_LINES) {
      const m = early.earlyMessage(line);
      if (m === undefined) continue;
      assert.equal(m.kind, "initialize", line);
      if (m.kind !== "initialize") continue;
      taken++;
      assert.ok(InitializeRequestSchema.safeParse(JSON.parse(line)).success, line);
      const mine = serializeMessage({
        result: early.initializeResult(m.protocolVersion, caps, INSTRUCTIONS),
        jsonrpc: "2.0",
        id: m.id,
      } as JSONRPCMessage);
      assert.equal(mine, await sdkAnswer(src, line), line);
    }
  }
  assert.equal(taken, 22, "the corpus's plain lines were taken early");
});

Deno.test("the early tools/list answer is the SDK server's", async () => {
  const src = source(false);
  for (
    const line of [
      '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":"b","method":"tools/list","params":{}}',
      '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"c"}}',
    ]
  ) {
    const m = early.earlyMessage(line);
    assert.equal(m?.kind, "list", line);
    const mine = serializeMessage({
      result: early.listToolsResult(await src.list()),
      jsonrpc: "2.0",
      id: (m as { id: number }).id,
    } as JSONRPCMessage);
    assert.equal(mine, await sdkAnswer(src, line), line);
  }
  for (
    const line of [
      '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":1}}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{}}}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"x":1}}',
      '{"jsonrpc":"2.0","id":2,"method":"ping"}',
      '{"jsonrpc":"2.0","method":"tools/list"}',
      "not json",
    ]
  ) {
    assert.equal(early.earlyMessage(line), undefined, line);
  }
});

/** Everything `write` produced on stdout for the input lines, one string per line, sorted. */
async function session(
  lines: string[],
  serve: (stdin: PassThrough, stdout: PassThrough) => Promise<unknown>,
): Promise<string[]> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
  const done = serve(stdin, stdout);
  for (const line of lines) {
    stdin.write(line + "\n");
    await new Promise((r) => setTimeout(r, 20)); // each line in its own chunk
  }
  const ids = lines.filter((l) => /"id"/.test(l) && !l.includes('"result"')).length;
  for (const end = Date.now() + 60_000; out.split("\n").length <= ids && Date.now() < end;) {
    await new Promise((r) => setTimeout(r, 5));
  }
  stdin.end();
  await done;
  return out.split("\n").filter((l) => l !== "").sort();
}

Deno.test("a stdio session answers exactly as the SDK-only transport does", async () => {
  const lines = [
    INIT(`{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},${INFO}}`),
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}',
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"info","arguments":{}}}',
    "not json",
    '{"jsonrpc":"2.0","id":4,"method":"tools/list"}',
    INIT(`{"protocolVersion":"2024-11-05","capabilities":{},${INFO}}`, "5"),
    '{"jsonrpc":"2.0","id":6,"method":"nope"}',
    '{"jsonrpc":"2.0","id":7,"method":"ping"}',
  ];
  const src = source(false);
  const front = await session(
    lines,
    (stdin, stdout) =>
      serveStdio(src, { stdin, stdout, handleSignals: false, instructions: INSTRUCTIONS }),
  );
  const sdkOnly = await session(lines, async (stdin, stdout) => {
    const mcp = createMcpServer(src, { instructions: INSTRUCTIONS, spliceMirrors: true });
    const ended = new Promise((r) => stdin.once("end", r));
    await mcp.connect(new StdioServerStreamTransport(stdin, stdout, { serialize: mcp.serialize }));
    await ended;
    await mcp.shutdown();
  });
  assert.equal(front.length, 7);
  assert.deepEqual(front, sdkOnly);
});

Deno.test("lines after a held one wait for the SDK and keep their order", async () => {
  const lines = [
    '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    INIT(`{"protocolVersion":"2025-06-18","capabilities":{},${INFO}}`, "2"),
    '{"jsonrpc":"2.0","id":3,"method":"tools/list"}',
  ];
  const src = source(true);
  const out = await session(
    lines,
    (stdin, stdout) => serveStdio(src, { stdin, stdout, handleSignals: false }),
  );
  assert.equal(out.length, 3);
  assert.ok(out.some((l) => l.includes('"resources":{"listChanged":true}')));
  assert.equal(Buffer.byteLength(out.join("")) > 0, true);
});

Deno.test("input past the bound ends the connection, also while the SDK loads", async () => {
  const init = INIT(`{"protocolVersion":"2025-06-18","capabilities":{},${INFO}}`);
  const ping = '{"jsonrpc":"2.0","id":9,"method":"ping"}';
  for (const first of [[], [init], [init, ping]]) {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    stdout.resume();
    const done = serveStdio(source(false), { stdin, stdout, handleSignals: false });
    for (const line of first) stdin.write(line + "\n");
    stdin.write(Buffer.alloc(STDIO_MAX_BUFFER_BYTES + 1, 0x61));
    assert.deepEqual(await done, { reason: "transport closed" });
  }
});

Deno.test("lines held or kept for a replay count against the input bound", async () => {
  const { StdioFront } = await import("../../lib/mcp/stdio_front.ts");
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  stdout.resume();
  let closed = false;
  let asked = 0;
  const front = new StdioFront(stdin, stdout, {
    early: {
      initialize: (v: string) => ({ protocolVersion: v }),
      list: () => Promise.resolve({ tools: [] }),
    },
    needServer: () => asked++,
    onEarlyClose: () => closed = true,
    maxBufferBytes: 64 * 1024,
  });
  front.begin();
  // A client that never makes the SDK load: initialize, then the notification again and
  // again, each line well within the bound, 4x the bound in all.
  const note = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n';
  stdin.write(INIT(`{"protocolVersion":"2025-06-18","capabilities":{},${INFO}}`) + "\n");
  for (let sent = 0; sent < 4 * 64 * 1024; sent += note.length) stdin.write(note);
  // Until the front closed or read everything (a closed front stops reading).
  while (!closed && (stdin.readableLength > 0 || stdin.writableLength > 0)) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(asked, 0);
  assert.equal(closed, true);
});

Deno.test("an early tools/list answer pending at the hand-over is never taken for initialize's", async () => {
  const { StdioFront } = await import("../../lib/mcp/stdio_front.ts");
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
  let answerList: (v: Record<string, unknown>) => void = () => {};
  const listed = new Promise<Record<string, unknown>>((resolve) => answerList = resolve);
  const front = new StdioFront(stdin, stdout, {
    early: { initialize: (v: string) => ({ protocolVersion: v }), list: () => listed },
    needServer: () => {},
  });
  front.begin();
  // A client that reuses the initialize's id for its listing (against the spec).
  stdin.write(INIT(`{"protocolVersion":"2025-06-18","capabilities":{},${INFO}}`, "1") + "\n");
  stdin.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n');
  while (!out.includes("\n")) await new Promise((resolve) => setImmediate(resolve));
  // The "SDK": answers the replayed initialize after the listing has been answered.
  front.onmessage = (m) => {
    if (!("method" in m) || m.method !== "initialize") return;
    answerList({ tools: [] });
    setTimeout(() => {
      void front.send({ jsonrpc: "2.0", id: 1, result: { protocolVersion: "2025-06-18" } });
    }, 10);
  };
  await front.handOver((line) => JSON.parse(line), serializeMessage);
  const lines = out.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 2);
  assert.ok(lines[0].includes('"protocolVersion"'), "the early initialize answer");
  assert.ok(lines[1].includes('"tools":[]'), "the listing, not a second initialize answer");
  await front.close();
});
