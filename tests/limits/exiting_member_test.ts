/**
 * A member that ends while its threads are listed is not a measurement cut short: the
 * kernel drops `/proc/<pid>/task` under the listing, and reading that as "children may be
 * hidden" stopped well-behaved tools for `max_processes` on a busy machine (a shell's
 * short-lived subshells are listed as they exit).
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { DescendantTracker } from "../../lib/limits/descendants.ts";
import { readProcStat } from "../../lib/process/proc_identity.ts";

// Forks short-lived processes without pause: many members end while being walked.
const FORKER = "i=0; while [ $i -lt 4000 ]; do (:) & i=$((i+1)); done; wait";

Deno.test("a member that exits mid-listing does not make the sample truncated", async () => {
  const child = spawn("/bin/sh", ["-c", FORKER], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  let done = false;
  void exited.then(() => done = true);
  const st = readProcStat(child.pid!);
  assert.ok(st !== null, "the forker is running");
  const tracker = new DescendantTracker({ pid: child.pid!, startTime: st.startTime });
  let rounds = 0;
  let truncated = 0;
  while (!done) {
    const s = tracker.step();
    if (s.complete) rounds++;
    if (s.truncated) truncated++;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  await exited;
  assert.ok(rounds > 0, "the tracker completed rounds while the forker ran");
  assert.equal(truncated, 0, `${truncated} of ${rounds} rounds were cut by members that exited`);
});
