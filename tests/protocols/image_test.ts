import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { ToolResult } from "../../lib/results/types.ts";
import { assertInvalid, callJson } from "./helpers.ts";

const MiB = 1024 * 1024;
const image = (mode: string, n?: number) =>
  callJson("image_tool.mjs", n === undefined ? [mode] : [mode, String(n)]);

function assertImage(r: ToolResult, mimeType: string, size?: number): void {
  assert.equal(r.isError, false, JSON.stringify(r).slice(0, 300));
  const block = r.content.find((b) => b.type === "image");
  assert.ok(block && block.type === "image");
  assert.equal(block.mimeType, mimeType);
  assert.deepEqual(Object.keys(block), ["type", "mimeType", "data"]);
  const bytes = Buffer.from(block.data, "base64");
  assert.equal(bytes.toString("base64"), block.data);
  if (size !== undefined) assert.equal(bytes.length, size);
}

Deno.test("data images: PNG, JPEG and WebP are accepted as given", async () => {
  assertImage(await image("data_png"), "image/png");
  assertImage(await image("data_jpeg"), "image/jpeg");
  assertImage(await image("data_webp"), "image/webp");
});

Deno.test("path images are read and embedded before the output dir is removed", async () => {
  assertImage(await image("path_rel"), "image/png");
  assertImage(await image("path_dot"), "image/png");
  assertImage(await image("path_abs"), "image/png");
  assertImage(await image("path_webp"), "image/webp");
  const mixed = await image("mixed");
  assert.deepEqual(mixed.content.map((b) => b.type), ["text", "image", "image"]);
});

Deno.test("image size: 4 MiB is fine, 4 MiB + 1 is refused (data and path)", async () => {
  for (const mode of ["data_size", "path_size"]) {
    assertImage(await image(mode, 4 * MiB - 1), "image/png", 4 * MiB - 1);
    assertImage(await image(mode, 4 * MiB), "image/png", 4 * MiB);
    assertInvalid(
      await image(mode, 4 * MiB + 1),
      /content block 1: the image is larger than 4 MiB/,
    );
  }
});

Deno.test("unsupported, animated, mismatched and empty images are refused", async () => {
  assertInvalid(await image("data_gif"), /format is not supported/);
  assertInvalid(await image("data_gif_as_png"), /format is not supported/);
  assertInvalid(await image("path_gif"), /format is not supported/);
  assertInvalid(await image("data_apng"), /animated PNG/i);
  assertInvalid(await image("data_mismatch"), /MIME type does not match/);
  assertInvalid(await image("path_mismatch"), /MIME type does not match/);
  assertInvalid(await image("data_empty"), /image is empty/);
});

Deno.test("invalid base64 and malformed image blocks are refused", async () => {
  assertInvalid(await image("data_bad"), /`data` is not valid standard base64/);
  assertInvalid(await image("data_unpadded"), /not valid standard base64/);
  assertInvalid(await image("data_whitespace"), /not valid standard base64/);
  assertInvalid(await image("both"), /exactly one of `data` or `path`/);
  assertInvalid(await image("extra"), /image blocks allow only/);
});

Deno.test("path images outside the output dir, through symlinks or special are refused", async () => {
  assertInvalid(await image("path_symlink_file"), /must not contain symlinks/);
  assertInvalid(await image("path_symlink_dir"), /must not contain symlinks/);
  assertInvalid(await image("path_outdir_symlink"), /output directory was replaced/);
  assertInvalid(await image("path_traversal"), /must not contain `\.\.`/);
  assertInvalid(await image("path_abs_traversal"), /must not contain `\.\.`/);
  assertInvalid(await image("path_abs_outside"), /must be inside the output directory/);
  assertInvalid(await image("path_fifo"), /must name a regular file/);
  assertInvalid(await image("path_dir"), /must name a regular file/);
  assertInvalid(await image("path_missing"), /does not exist/);
});

Deno.test("refusals never name the path or echo the data", async () => {
  const r = await image("path_symlink_file");
  assert.equal(JSON.stringify(r).includes("a.png"), false);
  assert.equal(JSON.stringify(r).includes("/calls/"), false);
  const d = await image("data_bad");
  assert.equal(JSON.stringify(d).includes("iVBOR"), false);
});

Deno.test("two 4 MiB images exceed the 8 MiB normalized result", async () => {
  assertInvalid(await image("many_big"), /the normalized result is larger than 8 MiB/);
});
