/**
 * The HTTP session pool on its own: the cap, least-recently-used eviction of idle
 * sessions only (cleanup awaited before the new session gets its slot), 503 when all are
 * busy, the idle sweep, and validation of the cap and the idle timeout.
 */

import assert from "node:assert/strict";
import { checkSessionLimits, type PoolSession, SessionPool } from "../../lib/mcp/http_sessions.ts";
import { InvocationError } from "../../lib/errors/errors.ts";

interface Fake {
  session: PoolSession;
  inFlight: number;
  shutdowns: number;
  closes: number;
  /** Resolves the pending shutdown. */
  finish: () => void;
}

function fake(lastSeen: number, inFlight = 0): Fake {
  let finish = () => {};
  const f: Fake = {
    session: undefined!,
    inFlight,
    shutdowns: 0,
    closes: 0,
    finish: () => finish(),
  };
  const mcp = {
    get inFlight() {
      return f.inFlight;
    },
    shutdown() {
      f.shutdowns++;
      return new Promise<void>((resolve) => (finish = resolve));
    },
  };
  const transport = {
    close() {
      f.closes++;
      return Promise.resolve();
    },
  };
  f.session = { mcp, transport, lastSeen, calls: 0 } as unknown as PoolSession;
  return f;
}

function poolOf(max: number, ...fakes: Fake[]): SessionPool {
  const pool = new SessionPool({ maxSessions: max, idleTimeoutMs: 60_000 });
  fakes.forEach((f, i) => pool.live.set(`s${i}`, f.session));
  return pool;
}

Deno.test("at the cap the least recently used idle session goes, cleaned up before its slot is used", async () => {
  const [a, b, c] = [fake(300), fake(100), fake(200)];
  const pool = poolOf(3, a, b, c);
  const reserved = pool.reserve();
  // b (least recently used) is out of the pool at once and being shut down.
  assert.deepEqual([...pool.live.keys()], ["s0", "s2"]);
  assert.equal(b.shutdowns, 1);
  assert.equal(b.closes, 1);
  let got: boolean | undefined;
  reserved.then((v) => (got = v));
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(got, undefined, "the slot waits for the evicted session's cleanup");
  b.finish();
  assert.equal(await reserved, true);
  assert.equal(a.shutdowns + c.shutdowns, 0);
  pool.release();
});

Deno.test("a session with a call in flight, or a request on its way in, is never evicted", async () => {
  const busy = fake(1, 1); // oldest, but a tool call runs
  const arriving = fake(2); // a request not yet handed to the MCP server
  arriving.session.calls = 1;
  const idle = fake(3);
  const pool = poolOf(3, busy, arriving, idle);
  const r = pool.reserve();
  idle.finish();
  assert.equal(await r, true);
  assert.equal(idle.shutdowns, 1);
  assert.equal(busy.shutdowns + arriving.shutdowns, 0);
  // Now all three slots are held: the two busy sessions and the new one being opened.
  assert.equal(await pool.reserve(), false);
  pool.release();
});

Deno.test("every session busy: no eviction, the caller answers 503", async () => {
  const pool = poolOf(2, fake(1, 1), fake(2, 2));
  assert.equal(await pool.reserve(), false);
  assert.equal(pool.live.size, 2);
});

Deno.test("reserved slots count against the cap until released", async () => {
  const pool = new SessionPool({ maxSessions: 2, idleTimeoutMs: 60_000 });
  assert.equal(await pool.reserve(), true);
  assert.equal(await pool.reserve(), true);
  assert.equal(await pool.reserve(), false); // two sessions still opening
  pool.release();
  assert.equal(await pool.reserve(), true);
});

Deno.test("the idle sweep closes sessions idle past the timeout, not busy ones", () => {
  const now = 1_000_000;
  const old = fake(now - 61_000);
  const oldBusy = fake(now - 61_000, 1);
  const fresh = fake(now - 1_000);
  const pool = poolOf(8, old, oldBusy, fresh);
  pool.sweepIdle(now);
  assert.deepEqual([...pool.live.keys()], ["s1", "s2"]);
  assert.equal(old.shutdowns, 1);
  assert.equal(old.closes, 1);
});

Deno.test("a request keeps its session busy until it reached the MCP server", async () => {
  const f = fake(0);
  const pool = poolOf(1, f);
  let release!: () => void;
  const handled = pool.track(f.session, () => new Promise<void>((r) => (release = r)));
  assert.equal(f.session.calls, 1);
  release();
  await handled;
  assert.equal(f.session.calls, 0);
  assert.ok(f.session.lastSeen > 0);
});

Deno.test("the cap and the idle timeout are validated", () => {
  assert.deepEqual(checkSessionLimits({}), { maxSessions: 128, idleTimeoutMs: 900_000 });
  assert.deepEqual(checkSessionLimits({ maxSessions: 1, idleTimeoutMs: 1 }), {
    maxSessions: 1,
    idleTimeoutMs: 1,
  });
  for (const maxSessions of [0, -1, 1.5, 65_537, NaN]) {
    assert.throws(() => checkSessionLimits({ maxSessions }), InvocationError);
  }
  for (const idleTimeoutMs of [0, -5, 2.5, 86_400_001, NaN]) {
    assert.throws(() => checkSessionLimits({ idleTimeoutMs }), InvocationError);
  }
});
