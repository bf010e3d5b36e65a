/**
 * Call directories made ahead (lib/process/ready_dirs.ts): what a call takes is exactly
 * what it would have made, each set serves one call, and every bound, the idle removal and
 * `close()` hold.
 */

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { ReadyDirs } from "../../lib/process/ready_dirs.ts";
import { CALL_RECORD_FILES, callsRoot } from "../../lib/process/call_dirs.ts";
import { withStateDir } from "./helpers.ts";

const entries = (stateDir: string) =>
  existsSync(callsRoot(stateDir)) ? readdirSync(callsRoot(stateDir)) : [];

Deno.test("a set made ahead is a call's private directories, taken once", async () => {
  await withStateDir(async (stateDir) => {
    const ready = new ReadyDirs({ max: 4, idleMs: 60_000 });
    try {
      assert.equal(ready.take(stateDir), undefined, "nothing made yet");
      ready.prepare(stateDir);
      ready.prepare(stateDir); // one set per state directory
      assert.equal(ready.take(stateDir), undefined, "not made before the caller's turn ends");
      await ready.settled();
      assert.equal(entries(stateDir).length, 1);
      const dirs = ready.take(stateDir)!;
      assert.ok(dirs !== undefined);
      assert.equal(ready.take(stateDir), undefined, "each set serves one call");
      assert.equal(ready.taken, 1);
      for (const d of [dirs.root, dirs.outputDir, dirs.tmpDir]) {
        assert.equal(statSync(d).mode & 0o777, 0o700, d);
      }
      const owner = JSON.parse(readFileSync(join(dirs.root, CALL_RECORD_FILES.owner), "utf8"));
      assert.equal(
        owner.pid,
        process.pid,
        "owned by this process: a sweep removes it after a crash",
      );
      assert.equal(existsSync(join(dirs.root, CALL_RECORD_FILES.journal)), false);
      await dirs.remove();
    } finally {
      await ready.close();
    }
  });
});

Deno.test("a set something was put in while it waited is not taken, and is removed", async () => {
  await withStateDir(async (stateDir) => {
    const ready = new ReadyDirs({ max: 4, idleMs: 60_000 });
    try {
      ready.prepare(stateDir);
      await ready.settled();
      const [name] = entries(stateDir);
      writeFileSync(join(callsRoot(stateDir), name, "output", "planted"), "x");
      assert.equal(ready.take(stateDir), undefined);
    } finally {
      await ready.close();
    }
    assert.deepEqual(entries(stateDir), []);
  });
});

Deno.test("sets made ahead: bounded per owner, removed when idle and on close", async () => {
  await withStateDir(async (a) => {
    await withStateDir(async (b) => {
      await withStateDir(async (c) => {
        const ready = new ReadyDirs({ max: 2, idleMs: 100 });
        for (const s of [a, b, c]) ready.prepare(s);
        assert.equal(ready.size, 2, "at most max sets");
        await ready.settled();
        assert.deepEqual([a, b, c].map((s) => entries(s).length), [1, 1, 0]);
        // Idle: removed (a condition, not a clock).
        for (let i = 0; i < 600 && ready.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
        assert.equal(ready.size, 0);
        await ready.close();
        assert.deepEqual([a, b].map(entries), [[], []], "idle sets are removed");
        const again = new ReadyDirs({ max: 2, idleMs: 60_000 });
        again.prepare(a);
        await again.settled();
        again.prepare(b); // still being made when closed
        await again.close();
        assert.deepEqual([a, b].map(entries), [[], []], "close removes every set");
        again.prepare(a);
        assert.equal(again.size, 0, "nothing is made after close");
      });
    });
  });
});

Deno.test("sets made ahead: at most 16 in the whole process", async () => {
  const dirs: string[] = [];
  const owners = Array.from({ length: 5 }, () => new ReadyDirs({ max: 4, idleMs: 60_000 }));
  const run = async (i: number): Promise<void> => {
    if (i === 20) {
      for (const s of dirs) for (const o of owners) o.prepare(s);
      assert.equal(owners.reduce((n, o) => n + o.size, 0), 16);
      await Promise.all(owners.map((o) => o.close()));
      return;
    }
    await withStateDir(async (s) => {
      dirs.push(s);
      await run(i + 1);
    });
  };
  await run(0);
});
