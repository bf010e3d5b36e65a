/**
 * Redaction replaces each occurrence once, with `[protected]`. A value that begins with
 * what the marker ends with (`]…`, as one random password in fifty does) or ends with
 * what it begins with (`…[`) formed itself again next to a marker: `]abc` followed by
 * `abc` became `[protected]abc`, the value. In results the last check withheld the
 * whole result; the terminal copy of stderr, spill files and error texts kept it.
 */

import assert from "node:assert/strict";
import { redactedCopy } from "../../lib/redact/copy.ts";
import { Redactor } from "../../lib/redact/redactor.ts";
import { StreamingRedactor } from "../../lib/redact/stream.ts";
import { assertTextHasNoPart, filler, open, spillContents } from "./_helpers.ts";

const HEAD = "]QZXK-PWNBRTVY-HJMLDSGCF"; // begins with the marker's last character
const TAIL = "QZXK-PWNBRTVY-HJMLDSGCF[PR"; // ends with the marker's first three, upper-cased
const TAIL2 = "QZXK-PWNBRTVY-HJMLDSGCF[pro"; // ends with the marker's first four

/** Texts that put a value's remainder right after (or before) where a marker goes. */
const cases: [string, string][] = [
  [HEAD, HEAD + HEAD.slice(1)],
  [HEAD, `x ${HEAD}${HEAD.slice(1)}${HEAD.slice(1)} y`],
  [TAIL2, TAIL2.slice(0, -4) + TAIL2],
  ["ed]QZXK-PWNBRTVY-HJMLDSGCF", "ed]QZXK-PWNBRTVY-HJMLDSGCF" + "QZXK-PWNBRTVY-HJMLDSGCF"],
];

Deno.test("a value never forms again next to the marker that replaced it", () => {
  for (const [value, text] of cases) {
    const r = new Redactor();
    r.add(value);
    const out = r.text(text);
    assert.ok(!out.includes(value), `${JSON.stringify(text)} → ${JSON.stringify(out)}`);
    assert.ok(out.includes("[protected]"));
    const bytes = new TextDecoder().decode(r.bytes(new TextEncoder().encode(text)));
    assert.ok(!bytes.includes(value), `bytes: ${JSON.stringify(bytes)}`);
    for (let cut = 1; cut < text.length; cut++) {
      const s = new StreamingRedactor(r);
      const streamed = s.push(text.slice(0, cut)) + s.push(text.slice(cut)) + s.end();
      assert.ok(!streamed.includes(value), `stream cut ${cut}: ${JSON.stringify(streamed)}`);
    }
  }
  const r = new Redactor();
  r.add(TAIL);
  assert.ok(!r.text(TAIL.slice(0, -3) + TAIL).includes(TAIL)); // no overlap: as before
});

Deno.test("the terminal copy of stderr never prints a value a marker formed again", () => {
  const r = new Redactor();
  r.add(HEAD);
  const seen: string[] = [];
  const copy = redactedCopy((b) => seen.push(new TextDecoder().decode(b)), r);
  copy.write(new TextEncoder().encode(`log ${HEAD}${HEAD.slice(1)} end\n`));
  copy.flush();
  assert.ok(!seen.join("").includes(HEAD), JSON.stringify(seen.join("")));
});

Deno.test("a spill file never holds a value a marker formed again", async () => {
  const w = await open({ "big.txt": filler(70 * 1024) + HEAD + HEAD.slice(1) + "\n" }, HEAD);
  try {
    const r = await w.reg.call("spill_app", { file: "big.txt" });
    assert.equal(r.isError, false, JSON.stringify(r).slice(0, 300));
    const files = spillContents(w.reg);
    assert.ok(files.length > 0, "spilled");
    assertTextHasNoPart(files, HEAD, "spill file");
  } finally {
    await w.cleanup();
  }
});
