/**
 * The sweep before a tool session starts is shared (lib/sessions/shared_sweep.ts): callers
 * asking while a sweep runs share the one next sweep, begun after they asked — so each
 * still gets a sweep that saw every folder stale when it asked.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { sharedSweep } from "../../lib/sessions/shared_sweep.ts";
import { forgeFolder, withState } from "./_forge.ts";

const ROOT_A = "00000000000000a1";
const ROOT_B = "00000000000000b2";

Deno.test("sharedSweep: callers during a running sweep share the next one, which sees their folders", async () => {
  await withState(async (state) => {
    const a = forgeFolder(state, "sessions", ROOT_A, []);
    const first = sharedSweep(state);
    // Stale only once the first sweep was under way: the first may miss it, the next not.
    const b = forgeFolder(state, "sessions", ROOT_B, []);
    const second = sharedSweep(state);
    const third = sharedSweep(state);
    const [r1, r2, r3] = await Promise.all([first, second, third]);
    assert.strictEqual(r2, r3, "callers asking during one sweep share the next");
    assert.notStrictEqual(r1, r2, "a sweep begun before a caller asked is not its sweep");
    assert.equal(r1.failed + r2.failed, 0, [...r1.problems, ...r2.problems].join("\n"));
    assert.equal(r1.swept + r2.swept, 2);
    assert.equal(existsSync(a) || existsSync(b), false);
    // Idle again: a new caller gets a sweep of its own.
    const r4 = await sharedSweep(state);
    assert.notStrictEqual(r4, r2);
    assert.equal(r4.swept, 0);
  });
});

Deno.test("sharedSweep: different state dirs and injected terminators are never shared", async () => {
  await withState(async (s1) => {
    await withState(async (s2) => {
      const terminate = () => Promise.resolve({ confirmed: true, signalled: false });
      const [x, y, z, w] = await Promise.all([
        sharedSweep(s1),
        sharedSweep(s2),
        sharedSweep(s1, { terminate }),
        sharedSweep(s1, { terminate }),
      ]);
      assert.notStrictEqual(x, y);
      assert.notStrictEqual(z, w);
    });
  });
});
