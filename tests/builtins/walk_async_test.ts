/**
 * The yielding walk: a slow visitor does not hold the event loop, and the slice's
 * AbortSignal stops the walk.
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { CancelledError, TimeSlice, walkTreeAsync } from "../../lib/paths/walk.ts";
import { Sandbox } from "../../lib/paths/sandbox.ts";
import { makeTree } from "./helpers.ts";

Deno.test("walkTreeAsync yields while its visitor is slow, and an abort stops it", async () => {
  const t = makeTree({});
  try {
    for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(t.root, `f${i}`), "");
    const box = Sandbox.open(t.root);
    try {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 30);
      let visited = 0;
      const busy = () => {
        const until = performance.now() + 2;
        while (performance.now() < until) { /* a slow visitor */ }
        visited++;
      };
      const t0 = performance.now();
      await assert.rejects(
        walkTreeAsync(box, box.root, ".", busy, {}, new TimeSlice(ac.signal)),
        CancelledError,
      );
      assert.ok(visited < 200 && performance.now() - t0 < 300, `${visited} visited`);
    } finally {
      box.close();
    }
  } finally {
    t.rm();
  }
});
