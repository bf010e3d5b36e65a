import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { jsonText, resultBytes, resultBytesAtMost } from "../../lib/results/json_text.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { enforceResultSize } from "../../lib/runtime/call_tool.ts";

const LIMIT_8_MIB = 8 * 1024 * 1024;

function randomResult(rand: () => number): ToolResult {
  const pool = ['"', "\\", "\n", "\u0001", "é", "\u{1f600}", "x", "\u2028", "\ud800"];
  const str = () =>
    Array.from({ length: Math.floor(rand() * 12) }, () => pool[Math.floor(rand() * 9)]).join("");
  const content = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => {
    const k = Math.floor(rand() * 3);
    if (k === 0) return { type: "text" as const, text: str() };
    if (k === 1) {
      return { type: "json" as const, data: { s: str(), n: rand(), a: [str(), null, true] } };
    }
    return { type: "image" as const, mimeType: "image/png" as const, data: "iVBORw0KGgo=" };
  });
  return { content, isError: rand() < 0.3 };
}

Deno.test("resultBytes equals the UTF-8 length of JSON.stringify(result)", () => {
  let seed = 3;
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 3000; i++) {
    const r = randomResult(rand);
    assert.equal(resultBytes(r), Buffer.byteLength(JSON.stringify(r)), JSON.stringify(r));
  }
  // Shapes outside the plain one are serialized as they are.
  const odd = [
    { content: [{ type: "json", data: undefined }], isError: false },
    { content: [{ type: "text", text: "a", extra: 1 }], isError: false },
    { content: [], isError: false, note: "x" },
    { isError: true, content: [{ type: "json", data: () => 1 }] },
  ] as unknown as ToolResult[];
  for (const r of odd) assert.equal(resultBytes(r), Buffer.byteLength(JSON.stringify(r)));
});

Deno.test("jsonText is the block's JSON and is computed once per block", () => {
  let calls = 0;
  const data = {
    toJSON() {
      calls++;
      return { n: 1 };
    },
  };
  const block = { type: "json" as const, data };
  assert.equal(jsonText(block), '{"n":1}');
  assert.equal(jsonText(block), '{"n":1}');
  assert.equal(resultBytes({ content: [block], isError: false }), 60);
  assert.equal(calls, 1);
  assert.equal(jsonText({ type: "json", data: undefined }), undefined);
});

Deno.test("the 8 MiB result bound: at, one below and one above", () => {
  // A text block whose serialized result is exactly LIMIT bytes, then ±1.
  const overhead = resultBytes({ content: [{ type: "text", text: "" }], isError: false });
  for (const delta of [-1, 0, 1]) {
    const text = "a".repeat(LIMIT_8_MIB - overhead + delta);
    const r: ToolResult = { content: [{ type: "text", text }], isError: false };
    assert.equal(resultBytes(r), LIMIT_8_MIB + delta);
    assert.equal(enforceResultSize(r).isError, delta > 0, `delta ${delta}`);
  }
});

Deno.test("resultBytesAtMost is never below resultBytes", () => {
  let seed = 11;
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 3000; i++) {
    const r = randomResult(rand);
    assert.ok(resultBytesAtMost(r) >= resultBytes(r), JSON.stringify(r));
  }
  const worst = ["\u0001".repeat(50), "\u{1f600}".repeat(50), "\ud800".repeat(50), "é\u2028"];
  for (const text of worst) {
    const t: ToolResult = { content: [{ type: "text", text }], isError: false };
    assert.ok(resultBytesAtMost(t) >= resultBytes(t), JSON.stringify(text));
    const j: ToolResult = { content: [{ type: "json", data: { text } }], isError: true };
    assert.ok(resultBytesAtMost(j) >= resultBytes(j), JSON.stringify(text));
  }
  const odd = { content: [{ type: "text", text: "a", extra: 1 }], isError: false };
  assert.equal(resultBytesAtMost(odd as unknown as ToolResult), Infinity);
});

Deno.test("the 8 MiB bound holds for a multi-byte text the upper bound cannot clear", () => {
  const text = "\u{1f600}".repeat(Math.ceil(LIMIT_8_MIB / 4) + 1); // 4 bytes, 2 units each
  const r: ToolResult = { content: [{ type: "text", text }], isError: false };
  assert.ok(resultBytes(r) > LIMIT_8_MIB);
  assert.equal(enforceResultSize(r).isError, true);
});
