/**
 * The streaming redactor (spill files) against occurrences that overlap: a text it
 * releases past its hold-back (the whole of an occurrence that started before it) must
 * not take away the start of a second occurrence that is not complete yet.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { Redactor } from "../../lib/redact/redactor.ts";
import { StreamingRedactor } from "../../lib/redact/stream.ts";

const A = "AAAA-first-secret-1234";
const B = "1234-second-secret-ZZZZ";
const hex = (s: string) => Buffer.from(s).toString("hex");

function streamed(red: Redactor, pieces: string[]): string {
  const s = new StreamingRedactor(red);
  return pieces.map((p) => s.push(p)).join("") + s.end();
}

Deno.test("stream: a value overlapping the end of another is redacted whole at every cut", () => {
  const red = new Redactor();
  red.add(A);
  red.add(B);
  // hex(A) ends with the hex of "1234", hex(B) starts with it: the two forms overlap.
  const text = "xx " + hex(A) + hex(B).slice(8) + " yy " + A + B.slice(4) + " zz";
  const whole = red.text(text);
  assert.equal(whole, "xx [protected] yy [protected] zz");
  for (let cut = 0; cut <= text.length; cut++) {
    const out = streamed(red, [text.slice(0, cut), text.slice(cut)]);
    assert.equal(out, whole, `cut at ${cut}`);
  }
});

Deno.test("stream: chains of overlapping values in random pieces come out as if whole", () => {
  const red = new Redactor();
  red.add(A);
  red.add(B);
  red.add("ZZZZ-third-QQ");
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) % n;
  const parts = [hex(A), hex(B).slice(8), A, B.slice(4), "-third-QQ", " ", "ab\n", "1234"];
  for (let i = 0; i < 300; i++) {
    let text = "";
    while (text.length < 400) text += parts[rand(parts.length)];
    const pieces: string[] = [];
    for (let at = 0; at < text.length;) {
      const n = 1 + rand(60);
      pieces.push(text.slice(at, at + n));
      at += n;
    }
    assert.equal(streamed(red, pieces), red.text(text), `text ${i}`);
  }
});
