/**
 * `Registry.call` is the one exit of a call's result and error: what leaves it passes the
 * redaction whatever produced it — a thrown typed error (whose message MCP and the CLI
 * show), a refusal made before the plugins' boundary — and a result the boundary already
 * redacted is not scanned again.
 */

import assert from "node:assert/strict";
import { Redactor } from "../../lib/redact/redactor.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { open, VALUE } from "./_helpers.ts";

Deno.test("a typed error thrown by a call leaves Registry.call redacted", async () => {
  const w = await open({});
  try {
    const name = `lines_${VALUE}`;
    let thrown: unknown;
    try {
      await w.reg.call(name, {});
    } catch (e) {
      thrown = e;
    }
    assert.ok(thrown instanceof Error, String(thrown));
    assert.ok(!thrown.message.includes(VALUE), thrown.message);
    assert.match(thrown.message, /\[protected\]/);
  } finally {
    await w.cleanup();
  }
});

Deno.test("a result the redactor handed out is not scanned again; a new value resets that", () => {
  const red = new Redactor();
  red.add("QZXK-PWNBRTVY");
  const r: ToolResult = {
    content: [{ type: "text", text: "QZXK-PWNBRTVY HJMLDSGCF" }],
    isError: false,
  };
  const once = red.result(r);
  assert.deepEqual(once.content, [{ type: "text", text: "[protected] HJMLDSGCF" }]);
  assert.equal(red.result(once), once);
  red.add("HJMLDSGCF");
  assert.deepEqual(red.result(once).content, [{ type: "text", text: "[protected] [protected]" }]);
});

Deno.test("a thrown error's stack and causes leave Registry.call redacted too", async () => {
  // `console.error(e)`, `util.inspect(e)` and TOOLHOST_DEBUG print the stack, which
  // repeats the message as it was made.
  const w = await open({});
  try {
    let thrown: unknown;
    try {
      await w.reg.call(`lines_${VALUE}`, {});
    } catch (e) {
      thrown = e;
    }
    assert.ok(thrown instanceof Error, String(thrown));
    assert.ok(!String(thrown.stack).includes(VALUE), String(thrown.stack));
    assert.ok(!Deno.inspect(thrown).includes(VALUE), Deno.inspect(thrown));
  } finally {
    await w.cleanup();
  }
  const red = new Redactor();
  red.add(VALUE);
  const inner = new Error(`inner ${VALUE}`);
  const outer = new Error("outer", { cause: inner });
  inner.cause = outer; // a loop ends too
  red.error(outer);
  assert.ok(!Deno.inspect(outer).includes(VALUE), Deno.inspect(outer));
});
