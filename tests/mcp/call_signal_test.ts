import assert from "node:assert/strict";
import { callSignal, callSignals } from "../../lib/mcp/call_signal.ts";

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

Deno.test("callSignals: the same as callSignal per call, one listener on the shared signal", () => {
  const stop = new AbortController();
  const signalFor = callSignals(stop.signal);
  const req1 = new AbortController();
  const req2 = new AbortController();
  const req3 = new AbortController();
  const c1 = signalFor(req1.signal);
  const c2 = signalFor(req2.signal);
  const c3 = signalFor(req3.signal);
  const order: number[] = [];
  c1.signal.addEventListener("abort", () => order.push(1));
  c2.signal.addEventListener("abort", () => order.push(2));
  c3.signal.addEventListener("abort", () => order.push(3));
  req2.abort("cancelled");
  assert.equal(c2.signal.reason, "cancelled");
  c3.dispose();
  stop.abort("bye");
  assert.equal(c1.signal.reason, "bye");
  assert.equal(c2.signal.reason, "cancelled");
  assert.equal(c3.signal.aborted, false, "a disposed call is no longer reached");
  assert.deepEqual(order, [2, 1]);
  req1.abort("late");
  assert.equal(c1.signal.reason, "bye");
  // After the shutdown, and for a request already cancelled: aborted at once.
  assert.equal(signalFor(new AbortController().signal).signal.reason, "bye");
  const done = new AbortController();
  done.abort("gone");
  assert.equal(callSignals(new AbortController().signal)(done.signal).signal.reason, "gone");
});
