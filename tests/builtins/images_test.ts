import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { checkImage, decodeBase64Strict, detectImage } from "../../lib/images/detect.ts";
import { runBuiltin } from "../../lib/builtins/run.ts";
import { decl, env, err, folderView, makeTree, noPhysical } from "./helpers.ts";

const MIB = 1024 * 1024;

function chunk(type: string, data: Uint8Array = new Uint8Array()): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  return Buffer.concat([len, Buffer.from(type, "latin1"), data, Buffer.alloc(4)]);
}

/** A framed PNG: signature, IHDR, optional extra chunks, IDAT, IEND; padded to `size`. */
function png(extra: Buffer[] = [], size = 0): Buffer {
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const body = [sig, chunk("IHDR", new Uint8Array(13)), ...extra, chunk("IDAT", new Uint8Array(8))];
  const head = Buffer.concat(body);
  const pad = Math.max(0, size - head.length - 12);
  return Buffer.concat([
    head,
    ...(pad > 0 ? [chunk("zzPd", new Uint8Array(pad))] : []),
    chunk("IEND"),
  ]);
}

function jpeg(size = 16): Buffer {
  const b = Buffer.alloc(size);
  b.set([0xff, 0xd8, 0xff, 0xe0]);
  return b;
}

function webp(payload = 12, declared?: number): Buffer {
  const b = Buffer.alloc(20 + payload);
  b.write("RIFF", 0, "latin1");
  b.writeUInt32LE(declared ?? b.length - 8, 4);
  b.write("WEBPVP8 ", 8, "latin1");
  return b;
}

Deno.test("detection by signature and framing", () => {
  assert.equal(detectImage(png()), "image/png");
  assert.equal(detectImage(jpeg()), "image/jpeg");
  assert.equal(detectImage(webp()), "image/webp");
  assert.equal(detectImage(Buffer.from("GIF89a......")), null);
  assert.equal(detectImage(Buffer.from("BM\0\0\0\0\0\0\0\0")), null);
  assert.equal(detectImage(png().subarray(0, 20)), null); // truncated IHDR
  const noIhdr = png();
  noIhdr.write("IDAT", 12, "latin1");
  assert.equal(detectImage(noIhdr), null);
  assert.equal(detectImage(webp(12, 999)), null); // RIFF size inconsistent
  const wave = webp();
  wave.write("WAVE", 8, "latin1");
  assert.equal(detectImage(wave), null);
  assert.equal(detectImage(Buffer.from([0xff, 0xd8])), null);
});

Deno.test("checks: empty, 4 MiB boundary, MIME match, animated PNG", () => {
  assert.deepEqual(checkImage(new Uint8Array()), { ok: false, reason: "The image is empty." });
  assert.deepEqual(checkImage(jpeg(4 * MIB)), { ok: true, mimeType: "image/jpeg" });
  assert.match((checkImage(jpeg(4 * MIB + 1)) as { reason: string }).reason, /4 MiB/);
  assert.equal(checkImage(png(), "image/png").ok, true);
  assert.match((checkImage(png(), "image/jpeg") as { reason: string }).reason, /does not match/);
  assert.match((checkImage(png(), "image/gif") as { reason: string }).reason, /does not match/);
  assert.match((checkImage(Buffer.from("GIF89a1234")) as { reason: string }).reason, /PNG, JPEG/);
  const apng = png([chunk("acTL", new Uint8Array(8))]);
  assert.match((checkImage(apng) as { reason: string }).reason, /Animated PNG/);
  // acTL after the first IDAT is not an animation control chunk.
  const late = Buffer.concat([
    png().subarray(0, -12),
    chunk("acTL", new Uint8Array(8)),
    chunk("IEND"),
  ]);
  assert.equal(checkImage(late).ok, true);
});

Deno.test("strict base64: alphabet, padding, whitespace, canonical bits, size before decoding", () => {
  assert.deepEqual([...decodeBase64Strict("aGk=") as Uint8Array], [104, 105]);
  assert.deepEqual([...decodeBase64Strict("") as Uint8Array], []);
  for (const bad of ["aGk", "aGk==", "aG k=", "aGk=\n", "aGl=", "a-_=", "====", "aGk=aGk="]) {
    assert.equal(decodeBase64Strict(bad), null, bad);
  }
  const at = Buffer.alloc(4 * MIB, 1).toString("base64");
  assert.equal(decodeBase64Strict(at)?.length, 4 * MIB);
  assert.equal(decodeBase64Strict(Buffer.alloc(4 * MIB + 1, 1).toString("base64")), null);
  // A huge string is refused from its length alone.
  assert.equal(decodeBase64Strict("A".repeat(64 * MIB)), null);
  assert.equal(decodeBase64Strict("aGk=", { maxBytes: 1 }), null);
});

Deno.test("view_image embeds checked images and refuses the rest", async () => {
  const t = makeTree({
    "a.png": png(),
    "b.jpg": jpeg(4 * MIB),
    "big.jpg": jpeg(4 * MIB + 1),
    "c.webp": webp(),
    "anim.png": png([chunk("acTL", new Uint8Array(8))]),
    "g.gif": "GIF89a123456",
    "empty.png": "",
    "fake.png": jpeg(),
  });
  try {
    const e = env(folderView("app", t.root));
    const r = await runBuiltin(decl("view_image"), { path: "a.png" }, e);
    assert.deepEqual(r, {
      content: [{ type: "image", mimeType: "image/png", data: png().toString("base64") }],
      isError: false,
    });
    const j = await runBuiltin(decl("view_image"), { path: "b.jpg" }, e);
    assert.equal(j.isError, false);
    assert.equal((j.content[0] as { mimeType: string }).mimeType, "image/jpeg");
    const fake = await runBuiltin(decl("view_image"), { path: "fake.png" }, e);
    assert.equal((fake.content[0] as { mimeType: string }).mimeType, "image/jpeg"); // bytes decide
    assert.equal((await runBuiltin(decl("view_image"), { path: "c.webp" }, e)).isError, false);
    for (
      const [p, re] of [
        ["big.jpg", /larger than 4 MiB/],
        ["anim.png", /Animated/],
        ["g.gif", /not supported/],
        ["empty.png", /empty/],
        ["missing.png", /does not exist/],
      ] as const
    ) {
      const res = await runBuiltin(decl("view_image"), { path: p }, e);
      assert.match(err(res), re);
      noPhysical(res, t.root);
    }
  } finally {
    t.rm();
  }
});
