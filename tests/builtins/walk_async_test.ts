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
      // The abort comes from a timer armed at the first visit: it can only fire, and the
      // walk can only stop early, if the walk gives the event loop a turn while it works.
      const ac = new AbortController();
      let visited = 0;
      const busy = () => {
        if (visited === 0) setTimeout(() => ac.abort(), 0);
        const until = performance.now() + 2;
        while (performance.now() < until) { /* a slow visitor */ }
        visited++;
      };
      await assert.rejects(
        walkTreeAsync(box, box.root, ".", busy, {}, new TimeSlice(ac.signal)),
        CancelledError,
      );
      assert.ok(visited < 200, `${visited} of 200 visited: the walk never yielded`);
    } finally {
      box.close();
    }
  } finally {
    t.rm();
  }
});
