import assert from "node:assert/strict";
import { callSignal } from "../../lib/mcp/call_signal.ts";

Deno.test("callSignal: either source aborts it, with that source's reason", () => {
  for (const which of ["a", "b"] as const) {
    const a = new AbortController();
    const b = new AbortController();
    const call = callSignal(a.signal, b.signal);
    assert.equal(call.signal.aborted, false);
    let events = 0;
    call.signal.addEventListener("abort", () => events++);
    (which === "a" ? a : b).abort(`from ${which}`);
    assert.equal(call.signal.aborted, true);
    assert.equal(call.signal.reason, `from ${which}`);
    (which === "a" ? b : a).abort("later");
    assert.equal(call.signal.reason, `from ${which}`);
    assert.equal(events, 1);
    call.dispose();
  }
});

Deno.test("callSignal: a source already aborted aborts it at once, as AbortSignal.any does", () => {
  const a = new AbortController();
  const b = new AbortController();
  b.abort("gone");
  const call = callSignal(a.signal, b.signal);
  const any = AbortSignal.any([a.signal, b.signal]);
  assert.equal(call.signal.aborted, any.aborted);
  assert.equal(call.signal.reason, any.reason);
  const both = new AbortController();
  both.abort("first");
  assert.equal(callSignal(both.signal, b.signal).signal.reason, "first");
  const reasonless = new AbortController();
  reasonless.abort();
  const r = callSignal(reasonless.signal, new AbortController().signal).signal.reason;
  assert.equal(r, reasonless.signal.reason); // the DOMException AbortError itself
});

Deno.test("callSignal: after dispose the sources no longer reach it", () => {
  const a = new AbortController();
  const b = new AbortController();
  const call = callSignal(a.signal, b.signal);
  call.dispose();
  call.dispose();
  a.abort("x");
  b.abort("y");
  assert.equal(call.signal.aborted, false);
});
