/**
 * Call events reach the listener of the async context that caused them — also from work
 * that context started and that reports later (a timer, a promise chain) — and nobody
 * else's; with no listener, reporting does nothing; a listener that throws changes nothing.
 */

import assert from "node:assert/strict";
import { type CallEvent, reportCallEvent, withCallEvents } from "../../lib/events/call_events.ts";

Deno.test("events reach the listener of the context that caused them, and only it", async () => {
  const a: CallEvent[] = [];
  const b: CallEvent[] = [];
  let later: Promise<void> | undefined;
  await Promise.all([
    withCallEvents((e) => a.push(e), async () => {
      await new Promise((r) => setTimeout(r, 5));
      reportCallEvent({ kind: "lock_mismatch", what: "tool" });
      // Started here, reported after this context's function returned.
      later = new Promise((r) => setTimeout(r, 20)).then(() =>
        reportCallEvent({ kind: "limit_breach", limit: "memory" })
      );
    }),
    withCallEvents((e) => b.push(e), async () => {
      await Promise.resolve();
      reportCallEvent({ kind: "extension_restart", extension: "fx" });
    }),
  ]);
  await later;
  assert.deepEqual(a, [
    { kind: "lock_mismatch", what: "tool" },
    { kind: "limit_breach", limit: "memory" },
  ]);
  assert.deepEqual(b, [{ kind: "extension_restart", extension: "fx" }]);
});

Deno.test("no listener: nothing happens; a throwing listener is ignored", () => {
  reportCallEvent({ kind: "limit_breach", limit: "cpu" }); // must not throw
  const r = withCallEvents(() => {
    throw new Error("observer failed");
  }, () => {
    reportCallEvent({ kind: "limit_breach", limit: "cpu" });
    return 7;
  });
  assert.equal(r, 7);
});
