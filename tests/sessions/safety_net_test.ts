import assert from "node:assert/strict";
import { join } from "node:path";
import type { ProcessRecord } from "../../lib/process/proc_identity.ts";
import { assertGroupsGone, assertStateClean, isRunning, sessionWorkspace } from "./_helpers.ts";

const OWNER = new URL("./fixtures/exit_owner.ts", import.meta.url).pathname;

async function endWithoutClose(how: string): Promise<void> {
  await using ws = await sessionWorkspace();
  const state = join(ws.root, ".state");
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", OWNER, ws.root, state, how],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  assert.ok(text.startsWith("{"), `the owner failed: ${new TextDecoder().decode(out.stderr)}`);
  assert.equal(out.code === 0, how === "exit" || how === "deno-exit");
  const { pids, groups } = JSON.parse(text) as { pids: number[]; groups: ProcessRecord[] };
  assert.equal(pids.length, 3);
  assert.equal(groups.length, 1);
  assertGroupsGone(groups);
  for (const pid of pids) assert.equal(isRunning(pid), false, `process ${pid} survived`);
  assertStateClean(state);
}

Deno.test("process.exit() without registry.close(): the exit net kills the session and removes its dir", async () => {
  await endWithoutClose("exit");
});

Deno.test("Deno.exit() without registry.close(): the net kills the session and removes its dir", async () => {
  await endWithoutClose("deno-exit");
});

Deno.test("an uncaught exception: the net kills the session and removes its dir", async () => {
  await endWithoutClose("throw");
});

Deno.test("an unhandled rejection: the net kills the session and removes its dir", async () => {
  await endWithoutClose("reject");
});
