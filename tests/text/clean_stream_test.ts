/**
 * The streaming cleaner gives exactly what whole-text cleaning gives, however the bytes
 * are cut: escape sequences and multi-byte characters split across chunks.
 */

import assert from "node:assert/strict";
import { cleanText, decodeLossy } from "../../lib/text/text_clean.ts";
import { StreamingCleaner } from "../../lib/text/clean_stream.ts";

const SAMPLE = new TextEncoder().encode(
  "\uFEFFstart \x1b[1;31mred\x1b[0m\r\nOSC \x1b]0;title\x07 é ✓ 𝄞 tab\there\x00\x7f\x1b(B end\n",
);
const WITH_INVALID = new Uint8Array([...SAMPLE, 0xff, 0x61, 0xe2, 0x82]);

function streamed(bytes: Uint8Array, sizes: number[]): string {
  const c = new StreamingCleaner();
  let out = "";
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const n = sizes[i % sizes.length];
    out += c.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out + c.end();
}

Deno.test("every chunk size from 1 to 17 bytes gives the whole-text result", () => {
  for (const bytes of [SAMPLE, WITH_INVALID]) {
    const want = cleanText(decodeLossy(bytes));
    for (let n = 1; n <= 17; n++) assert.equal(streamed(bytes, [n]), want, `chunk ${n}`);
    assert.equal(streamed(bytes, [3, 1, 7, 2]), want);
  }
});

Deno.test("every single cut position gives the whole-text result", () => {
  const want = cleanText(decodeLossy(SAMPLE));
  for (let cut = 0; cut <= SAMPLE.length; cut++) {
    const c = new StreamingCleaner();
    const out = c.push(SAMPLE.subarray(0, cut)) + c.push(SAMPLE.subarray(cut)) + c.end();
    assert.equal(out, want, `cut ${cut}`);
  }
});
