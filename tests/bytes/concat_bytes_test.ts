/**
 * The one byte-joining helper: order, sizes, and when its result may share memory with a
 * chunk — never unless asked, because a view of a reused buffer must not escape (the
 * redactor's window of a pooled scanner buffer, lib/native/read.ts).
 */

import assert from "node:assert/strict";
import { concatBytes } from "../../lib/bytes/concat_bytes.ts";
import { spliceBytes } from "../../lib/redact/ranges.ts";

const bytes = (...b: number[]) => new Uint8Array(b);

Deno.test("concatBytes joins chunks in order, views and empty chunks included", () => {
  const base = bytes(9, 1, 2, 9);
  const out = concatBytes([base.subarray(1, 3), bytes(), bytes(3), bytes(4, 5)]);
  assert.deepEqual([...out], [1, 2, 3, 4, 5]);
  assert.equal(out.byteOffset, 0);
  assert.equal(out.buffer.byteLength, 5);
});

Deno.test("concatBytes of no chunk is an empty array", () => {
  assert.equal(concatBytes([]).byteLength, 0);
  assert.equal(concatBytes([], { shareSingle: true }).byteLength, 0);
});

Deno.test("concatBytes copies a lone chunk unless shareSingle says it may be shared", () => {
  const only = bytes(1, 2, 3);
  const copy = concatBytes([only]);
  assert.notEqual(copy, only);
  only[0] = 7;
  assert.equal(copy[0], 1, "the copy does not see later writes");
  assert.equal(concatBytes([only], { shareSingle: true }), only);
});

Deno.test("spliceBytes never returns a view of its source, even when no range is in the window", () => {
  const src = new TextEncoder().encode("abcdef-secret");
  // A range exists, but only past the window [0, 6): one part, which must still be copied.
  const out = spliceBytes(src, [[7, 13]], 0, 6, new TextEncoder().encode("[p]"));
  assert.equal(new TextDecoder().decode(out), "abcdef");
  src.fill(0);
  assert.equal(new TextDecoder().decode(out), "abcdef", "a reused source buffer leaks nothing");
});
