/**
 * The result boundary: a value split across a tool's own text blocks, an image holding a
 * value, and a value that only appears in the serialized result.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { Redactor } from "../../lib/redact/redactor.ts";
import { redactResult, WITHHELD_IMAGE, WITHHELD_RESULT } from "../../lib/redact/result.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { assertNoPart, open, VALUE } from "./_helpers.ts";

Deno.test("a json-protocol tool's value split across two text blocks is redacted in both", async () => {
  const out = {
    content: [
      { type: "text", text: `a ${VALUE.slice(0, 10)}` },
      { type: "text", text: `${VALUE.slice(10)} b` },
    ],
  };
  const w = await open({ "out.json": JSON.stringify(out) });
  try {
    const r = await w.reg.call("emit_app", {});
    assert.equal(r.isError, false, JSON.stringify(r));
    assertNoPart(r, VALUE, "split blocks");
    assert.deepEqual(r.content, [
      { type: "text", text: "a [protected]" },
      { type: "text", text: " b" },
    ]);
  } finally {
    await w.cleanup();
  }
});

Deno.test("an image whose bytes hold a value is withheld", () => {
  const red = new Redactor();
  red.add(VALUE);
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.from(`tEXtComment\0${VALUE}`),
  ]);
  const r = redactResult(red, {
    content: [{ type: "image", mimeType: "image/png", data: png.toString("base64") }],
    isError: false,
  });
  assert.deepEqual(r.content, [{ type: "text", text: WITHHELD_IMAGE }]);
});

Deno.test("a value only the serialized result forms withholds the result", () => {
  const red = new Redactor();
  red.add('QZXK","PWNB');
  const r = redactResult(red, {
    content: [{ type: "json", data: ["QZXK", "PWNB"] }],
    isError: false,
  });
  assert.deepEqual(r, { content: [{ type: "text", text: WITHHELD_RESULT }], isError: true });
  const clean: ToolResult = { content: [{ type: "json", data: ["QZXK", "x"] }], isError: false };
  assert.equal(redactResult(red, clean), clean, "nothing to remove: the same object");
});

Deno.test("an extension's text is redacted before its 64 KiB cap, also in an error", async () => {
  const { fromMcpResult } = await import("../../lib/extensions/inbound_result.ts");
  const red = new Redactor();
  red.add(VALUE);
  for (let d = -30; d <= 0; d += 5) {
    const text = "a".repeat(64 * 1024 - 40 + d) + VALUE + "b".repeat(100);
    for (const isError of [false, true]) {
      const r = await fromMcpResult({ content: [{ type: "text", text }], isError }, {
        protect: red,
      });
      assert.equal(r.isError, isError);
      assertNoPart(r, VALUE, `extension cap ${d} ${isError}`);
    }
  }
});

Deno.test("a value split between a text block and a json block's MCP text goes too", async () => {
  // MCP shows a json block as a text block of its compact JSON: next to a text block, the
  // two are consecutive text blocks there, which a client may join.
  const { toMcpResult } = await import("../../lib/mcp/result_mapping.ts");
  const value = "QZXK-PWNBRTVY-4242424242";
  const red = new Redactor();
  red.add(value);
  const cases: ToolResult["content"][] = [
    [{ type: "text", text: "token QZXK-PWNBRTVY-" }, { type: "json", data: 4242424242 }],
    [{ type: "json", data: "x" }, { type: "text", text: "QZXK-PWNBRTVY-" }, {
      type: "json",
      data: [4242424242],
    }],
    [{ type: "text", text: "QZXK-PWNBRTVY-4242" }, { type: "json", data: 424242 }],
  ];
  for (const content of cases) {
    const r = redactResult(red, { content, isError: false });
    const shown = toMcpResult(r).content.map((b) => b.type === "text" ? b.text : "\u0000");
    assert.ok(!shown.join("").includes(value), JSON.stringify(r));
  }
});

Deno.test("replacing short values never grows a result past its bounds", async () => {
  const { resultBytes } = await import("../../lib/results/json_text.ts");
  const { LIMITS } = await import("../../lib/results/types.ts");
  const red = new Redactor();
  red.add("QZXK"); // 4 characters become 11
  red.add("4242"); // and a number becomes a quoted string
  const text = "QZXK ".repeat(Math.floor(LIMITS.maxTextBytes / 5));
  const words = new Array(Math.floor(LIMITS.maxJsonBytes / 7)).fill("QZXK");
  const numbers = new Array(Math.floor(LIMITS.maxJsonBytes / 5)).fill(4242);
  const cases: ToolResult[] = [
    { content: [{ type: "text", text }], isError: false },
    { content: [{ type: "json", data: words }], isError: false },
    { content: [{ type: "json", data: numbers }], isError: false },
    { content: new Array(15).fill({ type: "json", data: words.slice(0, 70_000) }), isError: false },
  ];
  for (const [i, r] of cases.entries()) {
    assert.ok(resultBytes(r) <= LIMITS.maxResultBytes, `case ${i} starts within bounds`);
    const out = redactResult(red, r);
    assert.ok(resultBytes(out) <= LIMITS.maxResultBytes, `case ${i}: ${resultBytes(out)} bytes`);
    for (const b of out.content) {
      if (b.type === "text") assert.ok(Buffer.byteLength(b.text) <= LIMITS.maxTextBytes, `${i}`);
      if (b.type === "json") {
        assert.ok(JSON.stringify(b.data).length <= LIMITS.maxJsonBytes, `case ${i} json block`);
      }
    }
    assertNoPart(out, "QZXK", `case ${i}`);
  }
});

Deno.test("an extension's resource text and link name/description are redacted before their cuts", async () => {
  const { fromMcpResult } = await import("../../lib/extensions/inbound_result.ts");
  const red = new Redactor();
  red.add(VALUE);
  for (let d = -20; d <= 0; d += 4) {
    const at = (n: number) => "a".repeat(n + d) + VALUE + "b".repeat(10);
    const r = await fromMcpResult({
      content: [
        { type: "resource", resource: { uri: "x://r", text: at(64 * 1024 - 40) } },
        { type: "resource_link", uri: "x://l", name: at(256 - 10), description: at(4000 - 10) },
      ],
    }, { protect: red });
    assert.equal(r.isError, false, JSON.stringify(r).slice(0, 300));
    assertNoPart(redactResult(red, r), VALUE, `extension resource cut ${d}`);
  }
});
