import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { NATIVE_LIMITS } from "../../lib/native/limits.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { admits, appTree, call, err, type Json, noPhysical } from "./_helpers.ts";

function meta(r: ToolResult): Json {
  assert.equal(r.isError, false, JSON.stringify(r).slice(0, 300));
  assert.equal(r.content[0].type, "json");
  return (r.content[0] as { data: Json }).data;
}

function body(r: ToolResult): string {
  return r.content.slice(1).map((b) => (b as { text: string }).text).join("");
}

Deno.test("files_read: default maxBytes is 512,000 — at, below and above the figure", async () => {
  const D = NATIVE_LIMITS.readDefaultBytes;
  assert.equal(D, 512_000);
  const t = appTree({ at: "a".repeat(D), below: "a".repeat(D - 1), above: "a".repeat(D + 1) });
  try {
    const at = await call("files_read", { path: "at" }, t.e);
    assert.deepEqual(
      [meta(at).returnedBytes, meta(at).truncated, meta(at).nextOffset, meta(at).totalBytes],
      [D, false, null, D],
    );
    const below = await call("files_read", { path: "below" }, t.e);
    assert.equal(meta(below).truncated, false);
    const above = await call("files_read", { path: "above" }, t.e);
    assert.deepEqual([meta(above).returnedBytes, meta(above).truncated, meta(above).nextOffset], [
      D,
      true,
      D,
    ]);
    assert.equal(body(above).length, D);
    for (const b of above.content.slice(1)) {
      assert.ok(
        Buffer.byteLength((b as { text: string }).text) <= 64 * 1024,
        "text blocks stay within 64 KiB",
      );
    }
    const rest = await call("files_read", { path: "above", offsetBytes: D }, t.e);
    assert.deepEqual([meta(rest).offset, meta(rest).returnedBytes, meta(rest).truncated], [
      D,
      1,
      false,
    ]);
    noPhysical(above, t.root);
  } finally {
    t.rm();
  }
});

Deno.test("files_read: maxBytes schema bounds 1..1,048,576", () => {
  assert.ok(admits("files_read", { path: "a", maxBytes: 1 }));
  assert.ok(!admits("files_read", { path: "a", maxBytes: 0 }));
  assert.ok(admits("files_read", { path: "a", maxBytes: NATIVE_LIMITS.readMaxBytes }));
  assert.ok(admits("files_read", { path: "a", maxBytes: NATIVE_LIMITS.readMaxBytes - 1 }));
  assert.ok(!admits("files_read", { path: "a", maxBytes: NATIVE_LIMITS.readMaxBytes + 1 }));
  assert.ok(!admits("files_read", { path: "a", offsetBytes: -1 }));
});

Deno.test("files_read: offsets at, below and past the end; pages reassemble the file", async () => {
  const text = "0123456789";
  const t = appTree({ f: text });
  try {
    const end = await call("files_read", { path: "f", offsetBytes: 10 }, t.e);
    assert.deepEqual([meta(end).returnedBytes, meta(end).truncated, meta(end).nextOffset], [
      0,
      false,
      null,
    ]);
    const last = await call("files_read", { path: "f", offsetBytes: 9 }, t.e);
    assert.equal(body(last), "9");
    const past = err(await call("files_read", { path: "f", offsetBytes: 11 }, t.e));
    assert.match(past, /past the end of `f`, which has 10 bytes/);
    let out = "";
    for (let off: number | null = 0; off !== null;) {
      const r = await call("files_read", { path: "f", offsetBytes: off, maxBytes: 3 }, t.e);
      out += body(r);
      off = meta(r).nextOffset;
    }
    assert.equal(out, text);
  } finally {
    t.rm();
  }
});

Deno.test("files_read: a range never ends inside a UTF-8 character; binary comes as base64", async () => {
  const t = appTree({ u: "aé€z", bin: new Uint8Array([0, 1, 2, 255]) });
  try {
    // "a" (1) "é" (2) "€" (3): 4 bytes would cut "€".
    const r = await call("files_read", { path: "u", maxBytes: 4 }, t.e);
    assert.deepEqual([meta(r).returnedBytes, meta(r).nextOffset, body(r)], [3, 3, "aé"]);
    const next = await call("files_read", { path: "u", offsetBytes: 3 }, t.e);
    assert.equal(body(next), "€z");
    const b = await call("files_read", { path: "bin" }, t.e);
    assert.equal(meta(b).encoding, "base64");
    assert.deepEqual([...Buffer.from(body(b), "base64")], [0, 1, 2, 255]);
  } finally {
    t.rm();
  }
});

Deno.test("files_read: symlinks, folders and escapes are refused without physical paths", async () => {
  const t = appTree({ "d/x": "x", link: { symlink: "../state" } });
  try {
    for (const path of ["link", "d", "../state", "/etc/passwd", "d/../x"]) {
      const r = await call("files_read", { path }, t.e);
      assert.equal(r.isError, true, path);
      noPhysical(r, t.root);
    }
  } finally {
    t.rm();
  }
});
