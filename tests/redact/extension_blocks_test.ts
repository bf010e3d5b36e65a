/**
 * An extension's consecutive text blocks are one text to a client: a value split across
 * two of them must go from both before anything cuts, spills or joins one block (the
 * 64 KiB cap of the first used to cut its part away, leaving the second's part in the
 * clear, where the result boundary could no longer find the value whole).
 */

import assert from "node:assert/strict";
import { fromMcpResult } from "../../lib/extensions/inbound_result.ts";
import { Redactor } from "../../lib/redact/redactor.ts";
import { redactResult } from "../../lib/redact/result.ts";
import { assertNoPart, VALUE } from "./_helpers.ts";

const red = new Redactor();
red.add(VALUE);

Deno.test("an extension's value split across text blocks goes whole past the cap, spill and error join", async () => {
  const long = "a".repeat(70 * 1024);
  const spilled: string[] = [];
  const spillText = (t: string) => (spilled.push(t), Promise.resolve(`[spilled ${t.length}]`));
  for (const cut of [4, 12, 20]) {
    for (const head of [long, "x "]) {
      const content = [
        { type: "text", text: head + VALUE.slice(0, cut) },
        { type: "text", text: VALUE.slice(cut) + " end" },
      ];
      for (const isError of [false, true]) {
        for (const opts of [{ protect: red }, { protect: red, spillText }]) {
          const inbound = await fromMcpResult({ content, isError }, opts);
          const what = `cut ${cut}, head ${head.length}, error ${isError}`;
          assertNoPart(redactResult(red, inbound), VALUE, what);
          // An error's blocks are joined and cut as one: its second block is then cut away.
          if (!isError || head !== long) assert.ok(JSON.stringify(inbound).includes("end"), what);
        }
      }
    }
  }
  for (const t of spilled) assert.ok(!t.includes(VALUE.slice(0, 4)), "spilled text");
});
