/**
 * A harness that keeps printing after its ready line: its output is drained (the harness
 * is never blocked for good) and discarded at a bounded pace, so toolhost's memory stays
 * flat instead of climbing with every byte the harness writes.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { assertStateClean, sessionWorkspace } from "./_helpers.ts";

const OWNER = new URL("./fixtures/spew_owner.ts", import.meta.url).pathname;

/** RSS growth allowed while the harness spews (unpaced, it was hundreds of MiB). */
const MAX_GROWTH_MB = 150;

Deno.test("a harness that never stops printing after readiness is drained with bounded memory", async () => {
  await using ws = await sessionWorkspace({ start: ["spew"] });
  const state = join(ws.root, ".state");
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", OWNER, ws.root, state, "3000"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  assert.equal(out.code, 0, dec.decode(out.stderr));
  const report = JSON.parse(dec.decode(out.stdout).trim()) as {
    baseMb: number;
    peakMb: number;
    drainedMs: number;
    get: unknown;
  };
  assert.ok(report.drainedMs >= 0, "the harness's output was not drained");
  assert.deepEqual(report.get, [{ type: "text", text: "x" }], "the session stopped working");
  const growth = Math.round(report.peakMb - report.baseMb);
  assert.ok(growth < MAX_GROWTH_MB, `RSS grew by ${growth} MiB while the harness printed`);
  assertStateClean(state);
});
