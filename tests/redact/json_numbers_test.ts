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
import { outsideStrings } from "../../lib/redact/json_source.ts";
import { Redactor } from "../../lib/redact/redactor.ts";
import { assertNoPart, open } from "./_helpers.ts";

const NUM = "98765432109876543210";

Deno.test("json protocol: a value outside a JSON string is refused, inside one redacted", async () => {
  const cases: Array<[string, boolean]> = [
    [`{"content":[{"type":"json","data":{"id":${NUM}}}]}`, true],
    [`{"content":[{"type":"json","data":[1${NUM}5]}]}`, true],
    [`{"content":[{"type":"json","data":-${NUM}.5e3}]}`, true],
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
