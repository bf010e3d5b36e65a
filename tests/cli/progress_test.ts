/**
 * Progress and color: drawn only on a terminal, only after the quiet period, erased when
 * the work ends; color only on a TTY with NO_COLOR unset and TERM not dumb.
 */
import assert from "node:assert/strict";
import { colorEnabled, paint } from "../../lib/cli/color.ts";
import { type ProgressTimers, startProgress, withProgress } from "../../lib/cli/progress.ts";

function fakeTimers() {
  const pending = new Map<number, { f: () => void; ms: number; repeat: boolean }>();
  let next = 1;
  const timers: ProgressTimers = {
    setTimeout: (f, ms) => (pending.set(next, { f, ms, repeat: false }), next++),
    setInterval: (f, ms) => (pending.set(next, { f, ms, repeat: true }), next++),
    clearTimeout: (h) => void pending.delete(h as number),
    clearInterval: (h) => void pending.delete(h as number),
  };
  const fire = (repeat: boolean) => {
    for (const [id, t] of [...pending]) {
      if (t.repeat !== repeat) continue;
      if (!repeat) pending.delete(id);
      t.f();
    }
  };
  return { timers, pending, fire };
}

function tty(isTTY = true) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, write: (s: string) => writes.push(s) } };
}

Deno.test("progress: nothing at all when the stream is not a terminal", () => {
  const { timers, pending } = fakeTimers();
  const { writes, stream } = tty(false);
  const p = startProgress("pinning", { stream, timers });
  assert.equal(pending.size, 0);
  p.stop();
  assert.equal(writes.length, 0);
});

Deno.test("progress: quiet for the first 1000 ms, then frames, then erased", () => {
  const { timers, pending, fire } = fakeTimers();
  const { writes, stream } = tty();
  const p = startProgress("pinning execution paths", { stream, timers, env: { NO_COLOR: "1" } });
  assert.deepEqual([...pending.values()].map((t) => [t.ms, t.repeat]), [[1000, false]]);
  assert.equal(writes.length, 0);
  fire(false);
  assert.equal(writes.length, 1);
  assert.match(writes[0], /^\r\S pinning execution paths…$/);
  assert.deepEqual([...pending.values()].map((t) => [t.ms, t.repeat]), [[100, true]]);
  p.update("running");
  fire(true);
  assert.match(writes[1], /^\r\S running… {16}$/, "a shorter label blanks the old tail");
  p.stop();
  assert.equal(writes[2], `\r${" ".repeat(26)}\r`);
  assert.equal(pending.size, 0);
  p.stop();
  assert.equal(writes.length, 3, "stop is idempotent");
  assert.ok(writes.every((w) => !w.includes("\x1b")), "NO_COLOR: no escape codes at all");
});

Deno.test("progress: work that ends within the quiet period draws nothing", () => {
  const { timers, pending } = fakeTimers();
  const { writes, stream } = tty();
  startProgress("quick", { stream, timers }).stop();
  assert.equal(pending.size, 0);
  assert.equal(writes.length, 0);
});

Deno.test("progress: labels are cut at 60 characters (59 and 60 whole, 61 cut)", () => {
  for (const [n, shown] of [[59, 59], [60, 60], [61, 60]]) {
    const { timers, fire } = fakeTimers();
    const { writes, stream } = tty();
    const p = startProgress("x".repeat(n), { stream, timers, env: { NO_COLOR: "1" } });
    fire(false);
    const label = writes[0].slice(3, -1);
    assert.equal(label.length, shown, `label of ${n}`);
    assert.equal(label.endsWith("…"), n > 60);
    p.stop();
  }
});

Deno.test("progress: the spinner is dim on a color terminal", () => {
  const { timers, fire } = fakeTimers();
  const { writes, stream } = tty();
  const p = startProgress("pinning", { stream, timers, env: { TERM: "xterm" } });
  fire(false);
  assert.ok(writes[0].includes("\x1b[2m"));
  p.stop();
});

Deno.test("withProgress stops and erases when the work throws", async () => {
  const { timers, pending, fire } = fakeTimers();
  const { writes, stream } = tty();
  await assert.rejects(
    withProgress("sweeping", () => {
      fire(false);
      return Promise.reject(new Error("boom"));
    }, { stream, timers }),
    /boom/,
  );
  assert.equal(pending.size, 0);
  assert.match(writes.at(-1)!, /^\r +\r$/);
});

Deno.test("colorEnabled: TTY only, NO_COLOR (non-empty) and TERM=dumb turn it off", () => {
  assert.equal(colorEnabled({ isTTY: true }, {}), true);
  assert.equal(colorEnabled({ isTTY: false }, {}), false);
  assert.equal(colorEnabled({}, {}), false);
  assert.equal(colorEnabled({ isTTY: true }, { NO_COLOR: "1" }), false);
  assert.equal(colorEnabled({ isTTY: true }, { NO_COLOR: "" }), true, "empty NO_COLOR is unset");
  assert.equal(colorEnabled({ isTTY: true }, { TERM: "dumb" }), false);
  assert.equal(paint("e", "red", true), "\x1b[31me\x1b[39m");
  assert.equal(paint("e", "red", false), "e");
});
