/**
 * `toolhost tools call` killed with SIGKILL mid-call (an agent harness's timeout, say),
 * then the next `tools call` on the workspace, which has no tool sessions: the killed
 * call's group — a leader ignoring SIGTERM and a `setsid` child — must not outlive it.
 * The next `tools call` sweeps the state directory on its own (before, only a session
 * start, `serve` or a manual `toolhost sweep` did); a bystander of the same user is left
 * alone.
 */

import assert from "node:assert/strict";
import { tempWorkspace } from "../helpers/workspace.ts";
import { cliCommand, runProcess } from "../helpers/cli.ts";
import { STUCK_SCRIPT as STUCK, STUCK_TOML as TOML } from "../helpers/stuck_call.ts";
import { alive, readPid, waitFor } from "../mcp/_helpers.ts";

Deno.test("tools call after a kill -9 of tools call: the killed call's processes are swept", async () => {
  await using tmp = await tempWorkspace(TOML, {
    "app/tools/stuck.sh": { text: STUCK, mode: 0o755 },
  });
  const env = { PIDDIR: tmp.root };
  const args = (
    tool: string,
  ) => ["tools", "call", tool, "--eval", "app/review", "--repo", tmp.root];
  const bystander = new Deno.Command("sleep", { args: ["600"], stdout: "null", stderr: "null" })
    .spawn();
  const first = cliCommand(args("stuck_app"), { env, stdout: "null", stderr: "null" }).spawn();
  let leader = 0;
  let child = 0;
  try {
    leader = await readPid(`${tmp.root}/leader.pid`);
    child = await readPid(`${tmp.root}/child.pid`);
    assert.ok(alive(leader) && alive(child), "the call runs");
  } finally {
    first.kill("SIGKILL");
    await first.status;
  }
  try {
    const r = await runProcess(args("hi_app"), { env });
    assert.equal(r.code, 0, r.err);
    const gone = await waitFor(() => !alive(leader) && !alive(child), 120_000);
    assert.equal(gone, true, "the killed call outlived the next tools call");
    assert.equal(alive(bystander.pid), true, "a bystander was signalled");
  } finally {
    for (const p of [leader, child]) {
      try {
        if (alive(p)) Deno.kill(p, "SIGKILL");
      } catch { /* gone */ }
    }
    bystander.kill("SIGKILL");
    await bystander.status;
  }
});
