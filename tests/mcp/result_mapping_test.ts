import assert from "node:assert/strict";
import { toMcpResult } from "../../lib/mcp/result_mapping.ts";
import { fromMcpResult } from "../../lib/extensions/inbound_result.ts";
import { errorResult, LIMITS, type ToolResult } from "../../lib/results/types.ts";

const PNG_1x1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

Deno.test("toMcpResult: text, json and image blocks map; isError is preserved", () => {
  const r: ToolResult = {
    content: [
      { type: "text", text: "hi" },
      { type: "json", data: { a: [1, 2] } },
      { type: "image", mimeType: "image/png", data: PNG_1x1 },
    ],
    isError: false,
  };
  assert.deepEqual(toMcpResult(r), {
    content: [
      { type: "text", text: "hi" },
      { type: "text", text: '{"a":[1,2]}' },
      { type: "image", data: PNG_1x1, mimeType: "image/png" },
    ],
    isError: false,
  });
  assert.deepEqual(toMcpResult(errorResult("boom")), {
    content: [{ type: "text", text: "boom" }],
    isError: true,
  });
});

Deno.test("toMcpResult: structuredContent only for exactly one json object block", () => {
  const one = toMcpResult({ content: [{ type: "json", data: { n: 1 } }], isError: false });
  assert.deepEqual(one.structuredContent, { n: 1 });
  assert.equal(one.content[0].type === "text" && one.content[0].text, '{"n":1}');
  for (const data of [[1], "s", 3, null]) {
    const r = toMcpResult({ content: [{ type: "json", data }], isError: false });
    assert.equal(r.structuredContent, undefined);
    assert.equal(r.content[0].type === "text" && r.content[0].text, JSON.stringify(data));
  }
  const two = toMcpResult({
    content: [{ type: "json", data: { n: 1 } }, { type: "text", text: "x" }],
    isError: false,
  });
  assert.equal(two.structuredContent, undefined);
});

Deno.test("fromMcpResult: text, image, resources and structured-only results normalize", async () => {
  assert.deepEqual(await fromMcpResult({ content: [{ type: "text", text: "a\u0007b" }] }), {
    content: [{ type: "text", text: "ab" }],
    isError: false,
  });
  const img = await fromMcpResult({
    content: [{ type: "image", data: PNG_1x1, mimeType: "image/png" }],
  });
  assert.deepEqual(img.content, [{ type: "image", mimeType: "image/png", data: PNG_1x1 }]);
  const res = await fromMcpResult({
    content: [
      { type: "resource", resource: { uri: "x:1", text: "inner" } },
      { type: "resource_link", uri: "x:2", name: "n" },
    ],
  });
  // Issue 18: embedded resources and links pass through faithfully (checked, bounded).
  assert.deepEqual(res.content, [
    { type: "resource", resource: { uri: "x:1", text: "inner" } },
    { type: "resource_link", uri: "x:2", name: "n" },
  ]);
  assert.deepEqual(await fromMcpResult({ content: [], structuredContent: { k: 1 } }), {
    content: [{ type: "json", data: { k: 1 } }],
    isError: false,
  });
});

Deno.test("fromMcpResult: an error result becomes one text block", async () => {
  const r = await fromMcpResult({
    content: [{ type: "text", text: "a" }, { type: "text", text: "b" }],
    isError: true,
  });
  assert.deepEqual(r, errorResult("a\nb"));
});

Deno.test("fromMcpResult: 32 blocks pass, 33 are refused", async () => {
  const blocks = (n: number) => Array.from({ length: n }, () => ({ type: "text", text: "x" }));
  assert.equal((await fromMcpResult({ content: blocks(31) })).content.length, 31);
  assert.equal((await fromMcpResult({ content: blocks(LIMITS.maxBlocks) })).content.length, 32);
  const over = await fromMcpResult({ content: blocks(33) });
  assert.equal(over.isError, true);
  assert.match((over.content[0] as { text: string }).text, /more than 32/);
});

Deno.test("fromMcpResult: text is capped at 64 KiB", async () => {
  const at = "a".repeat(LIMITS.maxTextBytes);
  const under = "a".repeat(LIMITS.maxTextBytes - 1);
  const over = "a".repeat(LIMITS.maxTextBytes + 1);
  const text = async (t: string) =>
    ((await fromMcpResult({ content: [{ type: "text", text: t }] })).content[0] as { text: string })
      .text;
  assert.equal(await text(under), under);
  assert.equal(await text(at), at);
  const capped = await text(over);
  assert.ok(new TextEncoder().encode(capped).byteLength <= LIMITS.maxTextBytes);
  assert.match(capped, /truncated/);
});

Deno.test("fromMcpResult: bad images and unknown blocks fail closed", async () => {
  for (
    const item of [
      { type: "image", data: "not base64!", mimeType: "image/png" },
      { type: "image", data: PNG_1x1, mimeType: "image/jpeg" },
      { type: "video", data: "" },
      "text",
    ]
  ) {
    const r = await fromMcpResult({ content: [item] });
    assert.equal(r.isError, true, JSON.stringify(item));
  }
  assert.equal((await fromMcpResult(null)).isError, true);
});

Deno.test("fromMcpResult: mapText may rewrite text or replace the result", async () => {
  const up = await fromMcpResult(
    { content: [{ type: "text", text: "x" }] },
    { mapText: (t) => Promise.resolve(t.toUpperCase()) },
  );
  assert.deepEqual(up.content, [{ type: "text", text: "X" }]);
  const refused = await fromMcpResult(
    { content: [{ type: "text", text: "x" }] },
    { mapText: () => Promise.resolve(errorResult("refused")) },
  );
  assert.deepEqual(refused, errorResult("refused"));
});

Deno.test("fromMcpResult: audio, blobs and links pass through, bounded like the rest", async () => {
  const ok = await fromMcpResult({
    content: [
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "x:b", mimeType: "application/pdf", blob: "AAEC" } },
      { type: "resource", resource: { uri: "x:t", text: "a\u0007" + "x".repeat(70_000) } },
      {
        type: "resource_link",
        uri: "x:l",
        name: "n\u001b",
        description: "d",
        mimeType: "text/plain",
      },
    ],
  });
  assert.equal(ok.isError, false);
  assert.deepEqual(ok.content[0], { type: "audio", mimeType: "audio/wav", data: "UklGRg==" });
  assert.deepEqual(ok.content[1], {
    type: "resource",
    resource: { uri: "x:b", mimeType: "application/pdf", blob: "AAEC" },
  });
  const t = ok.content[2] as { resource: { text: string } };
  assert.ok(new TextEncoder().encode(t.resource.text).length <= 64 * 1024);
  assert.ok(!t.resource.text.includes("\u0007"));
  assert.deepEqual(ok.content[3], {
    type: "resource_link",
    uri: "x:l",
    name: "n",
    mimeType: "text/plain",
    description: "d",
  });
  const refused = [
    { type: "audio", data: "not base64!", mimeType: "audio/wav" },
    { type: "audio", data: "AAAA", mimeType: "image/png" },
    { type: "audio", data: "A".repeat(6 * 1024 * 1024), mimeType: "audio/wav" },
    { type: "resource", resource: { uri: "x:1" } },
    { type: "resource", resource: { uri: "x\n1", text: "t" } },
    { type: "resource", resource: { uri: "x".repeat(3000), text: "t" } },
    { type: "resource_link", uri: "x:2" },
  ];
  for (const block of refused) {
    const r = await fromMcpResult({ content: [block] });
    assert.equal(r.isError, true, JSON.stringify(block).slice(0, 80));
  }
});

Deno.test("toMcpResult: audio and links only for protocol versions that have them", () => {
  const r = {
    content: [
      { type: "audio" as const, data: "AAAA", mimeType: "audio/wav" },
      { type: "resource_link" as const, uri: "x:l", name: "n" },
      { type: "resource" as const, resource: { uri: "x:t", text: "t" } },
    ],
    isError: false,
  };
  assert.deepEqual(toMcpResult(r, { protocolVersion: "2025-06-18" }).content, r.content);
  assert.deepEqual(toMcpResult(r, { protocolVersion: "2024-11-05" }).content, [
    { type: "text", text: "[audio: audio/wav]" },
    { type: "text", text: "[resource link: x:l]" },
    { type: "resource", resource: { uri: "x:t", text: "t" } },
  ]);
});
