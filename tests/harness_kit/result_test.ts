import assert from "node:assert/strict";
import { errorOutput, image, json, text, toResult } from "../../harness-kit/mod.ts";
import { cutUtf8 } from "../../harness-kit/result.ts";

const KiB = 1024;
// A real 1x1 grayscale PNG.
const PNG = new Uint8Array([
  137,
  80,
  78,
  71,
  13,
  10,
  26,
  10,
  0,
  0,
  0,
  13,
  73,
  72,
  68,
  82,
  0,
  0,
  0,
  1,
  0,
  0,
  0,
  1,
  8,
  0,
  0,
  0,
  0,
  58,
  126,
  155,
  85,
  0,
  0,
  0,
  10,
  73,
  68,
  65,
  84,
  120,
  156,
  99,
  96,
  0,
  0,
  0,
  2,
  0,
  1,
  72,
  175,
  164,
  113,
  0,
  0,
  0,
  0,
  73,
  69,
  78,
  68,
  174,
  66,
  96,
  130,
]);

function tooLarge(r: { isError?: boolean; content: { type: string; text?: string }[] }): string {
  assert.equal(r.isError, true);
  assert.equal(r.content.length, 1);
  return r.content[0].text ?? "";
}

Deno.test("helpers build closed blocks", () => {
  assert.deepEqual(text("a"), { type: "text", text: "a" });
  assert.deepEqual(json({ a: 1 }), { type: "json", data: { a: 1 } });
  assert.deepEqual(image(PNG), {
    type: "image",
    mimeType: "image/png",
    data: btoa(String.fromCharCode(...PNG)),
  });
  assert.deepEqual(image({ path: "shots/a.webp" }), {
    type: "image",
    mimeType: "image/webp",
    path: "shots/a.webp",
  });
  assert.throws(() => image(new Uint8Array([1, 2, 3])), /not a PNG, JPEG or WebP/);
  assert.throws(() => image({ path: "a.gif" }), /mimeType/);
});

Deno.test("return values become content blocks", () => {
  assert.deepEqual(toResult("hi"), { content: [{ type: "text", text: "hi" }] });
  assert.deepEqual(toResult(json(1)), { content: [{ type: "json", data: 1 }] });
  assert.deepEqual(toResult([text("a"), json(2)]), { content: [text("a"), json(2)] });
  assert.deepEqual(toResult({ content: [text("a")], isError: false }), { content: [text("a")] });
  assert.deepEqual(toResult({ content: [text("Nope.")], isError: true }), errorOutput("Nope."));
  assert.deepEqual(toResult([]), errorOutput("The tool returned no content."));
  assert.deepEqual(toResult({ isError: true, content: [text("a"), text("b")] }), errorOutput(""));
  assert.deepEqual(errorOutput("  "), {
    isError: true,
    content: [{ type: "text", text: "The tool failed." }],
  });
});

Deno.test("text blocks: 64 KiB pass, 64 KiB + 1 is an authored error", () => {
  assert.equal(toResult("x".repeat(64 * KiB - 1)).isError, undefined);
  assert.equal(toResult("x".repeat(64 * KiB)).isError, undefined);
  assert.equal(
    tooLarge(toResult("x".repeat(64 * KiB + 1))),
    "The tool's result was too large: text block 1 has 65537 bytes; the limit is 65536.",
  );
  assert.equal(toResult("é".repeat(32 * KiB + 1)).isError, true, "bytes, not characters, count");
});

Deno.test("blocks: 32 pass, 33 is an authored error", () => {
  const blocks = (n: number) => Array.from({ length: n }, () => text("."));
  assert.equal(toResult(blocks(31)).content.length, 31);
  assert.equal(toResult(blocks(32)).content.length, 32);
  assert.equal(
    tooLarge(toResult(blocks(33))),
    "The tool's result was too large: 33 blocks; the limit is 32.",
  );
});

Deno.test("json blocks: 512 KiB compact pass, one byte more is an error", () => {
  const data = (bytes: number) => "y".repeat(bytes - 2); // a JSON string: two quotes
  assert.equal(toResult(json(data(512 * KiB - 1))).isError, undefined);
  assert.equal(toResult(json(data(512 * KiB))).isError, undefined);
  assert.match(
    tooLarge(toResult(json(data(512 * KiB + 1)))),
    /json block 1 has 524289 bytes; the limit is 524288/,
  );
});

Deno.test("image data: 4 MiB pass, one byte more is an error", () => {
  const img = (n: number) => ({
    type: "image" as const,
    mimeType: "image/png" as const,
    data: btoa("a".repeat(n)),
  });
  assert.equal(toResult(img(4 * 1024 * KiB)).isError, undefined);
  assert.match(tooLarge(toResult(img(4 * 1024 * KiB + 1))), /image block 1 has 4194305 bytes/);
});

Deno.test("the whole result: at most 8 MiB", () => {
  const block = json("z".repeat(512 * KiB - 2));
  const n = Math.floor((8 * 1024 * KiB) / (512 * KiB + 25)); // 15 blocks fit
  assert.equal(toResult(Array(n).fill(block)).isError, undefined);
  assert.match(tooLarge(toResult(Array(17).fill(block))), /bytes in all; the limit is 8388608/);
});

Deno.test("cutUtf8 never splits a character", () => {
  assert.equal(cutUtf8("aé", 2), "a");
  assert.equal(cutUtf8("aé", 3), "aé");
  assert.equal(errorOutput("é".repeat(40 * KiB)).content[0].type, "text");
  assert.ok(
    new TextEncoder().encode(
      (errorOutput("é".repeat(40 * KiB)).content[0] as { text: string }).text,
    ).length <= 64 * KiB,
  );
});

Deno.test("path images are measured in the output directory (node:fs loaded on use)", () => {
  const out = Deno.makeTempDirSync();
  try {
    Deno.writeFileSync(`${out}/ok.png`, new Uint8Array(4 * 1024 * KiB));
    Deno.writeFileSync(`${out}/big.png`, new Uint8Array(4 * 1024 * KiB + 1));
    assert.equal(toResult(image({ path: "ok.png" }), out).isError, undefined);
    assert.match(
      tooLarge(toResult(image({ path: "big.png" }), out)),
      /image block 1 has 4194305 bytes/,
    );
    assert.match(
      tooLarge(toResult(image({ path: `${out}/big.png` }), out)),
      /image block 1 has 4194305 bytes/,
    );
  } finally {
    Deno.removeSync(out, { recursive: true });
  }
});
