import assert from "node:assert/strict";
import { join } from "node:path";
import type { Registry } from "../../lib/registry/registry.ts";
import {
  assertGroupsGone,
  assertStateClean,
  isRunning,
  journalEntries,
  openRegistry,
  readPids,
  sessionEntries,
  sessionWorkspace,
  textOf,
  waitFor,
} from "./_helpers.ts";

const N = 20;

Deno.test("20 concurrent sessions of the same Artifact end with no process and no directory", async () => {
  await using ws = await sessionWorkspace();
  const state = join(ws.root, ".state");
  const regs: Registry[] = [];
  for (let i = 0; i < N; i++) regs.push(await openRegistry(ws.root, state));
  try {
    const puts = await Promise.all(regs.map((r, i) => r.call("put_app", { value: `v${i}` })));
    for (const p of puts) {
      assert.deepEqual(p, { content: [{ type: "text", text: "stored\n" }], isError: false });
    }
    const gets = await Promise.all(regs.map((r) => r.call("get_app", {})));
    assert.deepEqual(gets.map(textOf), regs.map((_, i) => `v${i}`));
    assert.equal(sessionEntries(state).length, N);
    const dirs = regs.map((r) => r.sessions.sessions()[0].sessionDir!);
    assert.equal(new Set(dirs).size, N);
    for (const d of dirs) {
      await waitFor(() => readPids(join(d, "pids")).length === 3, 120_000, "children");
    }
    const pids = dirs.flatMap((d) => readPids(join(d, "pids")));
    const groups = (await journalEntries(state)).map((e) => e.record);
    assert.equal(groups.length, N, "one start group per session");
    for (const pid of pids) assert.ok(isRunning(pid));
    await Promise.all(regs.map((r) => r.close()));
    for (const pid of pids) assert.equal(isRunning(pid), false, `process ${pid} survived`);
    assertGroupsGone(groups);
  } finally {
    await Promise.all(regs.map((r) => r.close()));
  }
  assertStateClean(state);
});
