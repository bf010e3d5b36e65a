/**
 * A value written where JSON parsing rewrites it — a number with more digits than a
 * double holds is rounded (`98765432109876543210` → `98765432109876540000`) — must not
 * come out as most of itself: json-protocol output holding a value outside a string is
 * refused before the parse, and the result boundary takes a number that parses to the
 * same double as a value for the value (extensions' `structuredContent`, plugin tools).
 */

import assert from "node:assert/strict";
import { fromMcpResult } from "../../lib/extensions/inbound_result.ts";
import { HELD_OUTSIDE_STRINGS } from "../../lib/protocols/json_output.ts";
import { heldBeforeParse, outsideStrings, rewrittenNumbers } from "../../lib/redact/json_source.ts";
import { Redactor } from "../../lib/redact/redactor.ts";
import { assertNoPart, open } from "./_helpers.ts";

const NUM = "98765432109876543210";
/** Its digits around a point, one more after: no contiguous value, the parse joins them. */
const SPLIT = `${NUM.slice(0, 5)}.${NUM.slice(5)}5e16`;

Deno.test("json protocol: a value outside a JSON string is refused, inside one redacted", async () => {
  const cases: Array<[string, boolean]> = [
    [`{"content":[{"type":"json","data":{"id":${NUM}}}]}`, true],
    [`{"content":[{"type":"json","data":[1${NUM}5]}]}`, true],
    [`{"content":[{"type":"json","data":-${NUM}.5e3}]}`, true],
    // The value's digits with a point in them: the parse drops the point and rounds,
    // `987654321098765400000` — sixteen of its digits.
    [`{"content":[{"type":"json","data":[${SPLIT}]}]}`, true],
    [`{"content":[{"type":"json","data":{"n":-${NUM.slice(0, 5)}.${NUM.slice(5)}e15}}]}`, true],
    [`{"content":[{"type":"text","text":"n=${NUM} \\"q\\" ${NUM}"}]}`, false],
    [`{"content":[{"type":"json","data":{"k\\\\":"${NUM}"}}]}`, false],
  ];
  for (const [out, refused] of cases) {
    const w = await open({ "out.json": out }, NUM);
    try {
      const r = await w.reg.call("emit_app", {});
      assertNoPart(r, NUM.slice(0, 12), out);
      assert.equal(r.isError, refused, JSON.stringify(r));
      if (refused) assert.deepEqual(r.content, [{ type: "text", text: HELD_OUTSIDE_STRINGS }]);
      else assert.match(JSON.stringify(r), /\[protected\]/);
    } finally {
      await w.cleanup();
    }
  }
});

Deno.test("a number that parses to a value's double is redacted at the result boundary", async () => {
  const red = new Redactor();
  red.add(NUM);
  const raw = { content: [], structuredContent: { id: Number(NUM), n: 98765432109876540000 } };
  const r = red.result(await fromMcpResult(raw, { protect: red }));
  assert.deepEqual(r.content, [{ type: "json", data: { id: "[protected]", n: "[protected]" } }]);
});

Deno.test("outsideStrings places ranges against string tokens and escapes", () => {
  const t = '{"a":"x\\"SECRET","b":[SECRET],"c":"\\\\"}';
  const at = (s: string, from = 0) => t.indexOf(s, from);
  const inside = at("SECRET");
  const bare = at("SECRET", inside + 1);
  assert.equal(outsideStrings(t, [[inside, inside + 6]]), false);
  assert.equal(outsideStrings(t, [[bare, bare + 6]]), true);
  assert.equal(outsideStrings(t, [[inside, inside + 8]]), true, "runs past the closing quote");
  assert.equal(outsideStrings(t, [[inside - 1, inside + 3]]), false, "an escape is content");
  assert.equal(outsideStrings(t, [[0, 2]]), true);
  assert.equal(outsideStrings(t, []), false);
});

Deno.test("heldBeforeParse: a number the parse rewrites is searched as its digits and its form", () => {
  const red = new Redactor();
  red.add(NUM);
  const held = (t: string) => heldBeforeParse(t, red);
  assert.equal(held(`{"n":${SPLIT}}`), true, "digits joined across the point");
  assert.equal(held(`{"n":${NUM.slice(0, 3)}.${NUM.slice(3)}e20}`), true);
  assert.equal(held(`{"n":9876543210.9876543210e10}`), true);
  assert.equal(held(`{"s":"${SPLIT}","n":1.50}`), false, "inside a string: left to redaction");
  assert.equal(held(`{"n":1.5e3,"m":[-0.25, 7]}`), false);
  const short = new Redactor();
  short.add("12340000");
  assert.equal(heldBeforeParse("[1234e4]", short), true, "the form it parses to");
  assert.equal(heldBeforeParse("[1234e3]", short), false);
  assert.equal(heldBeforeParse("[1234e4]", new Redactor()), false, "no value: never held");
  assert.deepEqual(rewrittenNumbers('{"a":12,"b":"3.0","c":-4.50E+1}'), ["450", "-45"]);
});
