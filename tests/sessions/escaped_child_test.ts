/**
 * A harness whose start (and stop) command leaves a child outside its process group
 * (`setsid`) that still holds the harness's stdout and stderr: the group kill misses that
 * child, so toolhost finds it by its group's environment tag and ends it too, and never
 * waits on the pipes it holds — `toolhost tools call` prints its result, cleans up and
 * exits, and nothing it started outlives it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { cliCommand } from "../helpers/cli.ts";
import { assertStateClean, isRunning, readPids, sessionWorkspace } from "./_helpers.ts";

/** Longest a `tools call` may take here; the bug kept it alive for the child's 1000 s. */
const EXIT_WITHIN_MS = 20_000;

Deno.test("tools call exits when the harness's start and stop leave a detached child holding its pipes", async () => {
  await using ws = await sessionWorkspace({ start: ["detach"], stop: ["detach"] });
  const state = join(ws.root, ".state");
  const pidFile = join(ws.root, "app", "detached.pids");
  const child = cliCommand([
    "tools",
    "call",
    "put_app",
    "--args",
    JSON.stringify({ value: "kept-out-of-messages" }),
    "--repo",
    ws.root,
    "--eval",
    "app/review",
    "--state-dir",
    state,
  ]).spawn();
  const done = child.output();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<"hung">((r) => (timer = setTimeout(() => r("hung"), EXIT_WITHIN_MS)));
  try {
    const outcome = await Promise.race([done, hung]);
    if (outcome === "hung") {
      child.kill("SIGKILL");
      await done;
      assert.fail("tools call did not exit while the detached child lived");
    }
    const err = new TextDecoder().decode(outcome.stderr);
    assert.equal(outcome.code, 0, err);
    const result = JSON.parse(new TextDecoder().decode(outcome.stdout));
    assert.deepEqual(result, { content: [{ type: "text", text: "stored\n" }], isError: false });
    const detached = readPids(pidFile);
    assert.equal(detached.length, 2, "start and stop should each have detached one child");
    for (const pid of detached) {
      assert.equal(isRunning(pid), false, `detached child ${pid} survived`);
    }
    assertStateClean(state);
  } finally {
    clearTimeout(timer);
    for (const pid of readPids(pidFile)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* already gone */ }
    }
  }
});
