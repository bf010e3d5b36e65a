/**
 * `serve --http`: a POST body is bounded in time as well as in bytes. A client that passed
 * the guards (it holds the token) but sends its body a byte at a time, or a chunked body
 * that never ends, no longer holds the request and its connection for as long as it likes:
 * past the deadline the connection is closed and the server goes on serving others.
 */

import assert from "node:assert/strict";
import { connect } from "node:net";
import { PassThrough } from "node:stream";
import type { IncomingMessage } from "node:http";
import { startHttpServer } from "../../lib/mcp/http.ts";
import { readJsonBody } from "../../lib/mcp/http_body.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";
import { INIT_BODY, MCP_POST_HEADERS } from "./_http_serve.ts";

const SOURCE: ToolSource = {
  list: () => Promise.resolve([]),
  call: () => Promise.resolve({ content: [], isError: false }),
  close: () => Promise.resolve(),
};
const TOKEN = "body-deadline-test-token-0123456789";

Deno.test("readJsonBody: a body that never ends is 408 once the deadline passed", async () => {
  const stream = new PassThrough();
  stream.write('{"jsonrpc":"2.0",');
  const read = await readJsonBody(stream as unknown as IncomingMessage, { deadlineMs: 50 });
  assert.equal(read.ok, false);
  assert.equal(!read.ok && read.status, 408);
  assert.ok(stream.destroyed, "nothing more is read from it");
});

Deno.test("readJsonBody: bytes and JSON are still checked", async () => {
  const body = (text: string) => {
    const s = new PassThrough();
    s.end(text);
    return s as unknown as IncomingMessage;
  };
  assert.deepEqual(await readJsonBody(body('{"a":1}')), { ok: true, value: { a: 1 } });
  const big = await readJsonBody(body("x".repeat(20)), { maxBytes: 10 });
  assert.equal(!big.ok && big.status, 413);
  const bad = await readJsonBody(body("{"));
  assert.equal(!bad.ok && bad.code, -32700);
});

Deno.test("serve over HTTP: a slow body's connection is closed; others are served", async () => {
  const http = await startHttpServer({
    bind: { host: "127.0.0.1", port: 0 },
    openSource: () => Promise.resolve(SOURCE),
    token: TOKEN,
    bodyDeadlineMs: 300,
  });
  const socket = connect(http.port, "127.0.0.1");
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  try {
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const head = Object.entries({ ...MCP_POST_HEADERS, authorization: `Bearer ${TOKEN}` })
      .map(([k, v]) => `${k}: ${v}\r\n`).join("");
    // Headers that pass every guard, then a body that never comes whole.
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${http.port}\r\n${head}` +
        `Content-Length: ${INIT_BODY.length}\r\n\r\n${INIT_BODY.slice(0, 10)}`,
    );
    // Closed by the server (the test's own limit is far above the deadline).
    await closed;
    const res = await fetch(http.url, {
      method: "POST",
      headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${TOKEN}` },
      body: INIT_BODY,
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  } finally {
    socket.destroy();
    await http.close();
  }
});
