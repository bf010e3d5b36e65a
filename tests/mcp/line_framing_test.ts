import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import { ReadBuffer } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { feedLines, frameBytes, utf8Bytes } from "../../lib/extensions/line_framing.ts";

Deno.test("feedLines: split chunks, a bad line skipped, the next still delivered", () => {
  const buf = new ReadBuffer();
  const got: unknown[] = [];
  const errors: Error[] = [];
  const sink = { onmessage: (m: unknown) => got.push(m), onerror: (e: Error) => errors.push(e) };
  const line = new TextDecoder().decode(frameBytes({ jsonrpc: "2.0", method: "a" }));
  assert.equal(feedLines(buf, Buffer.from(line.slice(0, 7)), sink), true);
  assert.equal(got.length, 0);
  assert.equal(feedLines(buf, Buffer.from(line.slice(7) + "not json\n" + line), sink), true);
  assert.equal(got.length, 2);
  assert.equal(errors.length, 1);
});

Deno.test("feedLines: more unread input than the bound is an error and false", () => {
  const buf = new ReadBuffer({ maxBufferSize: 16 });
  const errors: Error[] = [];
  assert.equal(
    feedLines(buf, Buffer.from("x".repeat(16)), { onerror: (e) => errors.push(e) }),
    true,
  );
  assert.equal(feedLines(buf, Buffer.from("y"), { onerror: (e) => errors.push(e) }), false);
  assert.equal(errors.length, 1);
});

Deno.test("utf8Bytes: the same bytes as TextEncoder, surrogates and all", () => {
  const enc = new TextEncoder();
  const cases = [
    "",
    "plain ascii\n",
    "é ü ß — ✓ 中文 😀\n",
    "lone high \ud800 and low \udc00 surrogates, reversed pair \udc00\ud800, end \ud83d",
    "\u0000\u007f\u0080\u07ff\u0800\uffff",
    "x".repeat(70_000) + "😀".repeat(1000),
  ];
  for (const text of cases) {
    assert.deepEqual(utf8Bytes(text), enc.encode(text), JSON.stringify(text.slice(0, 40)));
  }
  const message = { jsonrpc: "2.0" as const, id: 1, result: { text: "a\ud800b😀" } };
  assert.deepEqual(frameBytes(message), enc.encode(JSON.stringify(message) + "\n"));
});
