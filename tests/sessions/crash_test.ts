import assert from "node:assert/strict";
import { join } from "node:path";
import { terminateGroup } from "../../lib/process/kill_group.ts";
import { sweepSessions } from "../../lib/sessions/sweep.ts";
import { runCapture } from "../helpers/cli.ts";
import type { ProcessRecord } from "../../lib/process/proc_identity.ts";
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
} from "./_helpers.ts";

const OWNER = new URL("./fixtures/crash_owner.ts", import.meta.url).pathname;

interface Crashed {
  groups: ProcessRecord[];
  pids: number[];
}

/** Run crash_owner.ts until it is ready, SIGKILL it, and return what it left running. */
async function crashOwner(root: string, state: string): Promise<Crashed> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", OWNER, root, state],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the owner exited before it was ready");
    out += new TextDecoder().decode(value);
  }
  const dir = out.trim().split(" ")[1];
  // The call's record is appended once its process is known, which may be just after the
  // tool announced itself: wait for both records (bounded), not for a clock.
  let groups = (await journalEntries(state)).map((e) => e.record);
  for (let i = 0; i < 1200 && groups.length < 2; i++) {
    await new Promise((r) => setTimeout(r, 50));
    groups = (await journalEntries(state)).map((e) => e.record);
  }
  const pids = [...readPids(join(dir, "pids")), ...readPids(join(dir, "call_pids"))];
  child.kill("SIGKILL");
  await child.status;
  reader.releaseLock();
  await child.stdout.cancel();
  return { groups, pids };
}

function assertAlive(c: Crashed): void {
  assert.equal(c.groups.length, 2, "expected the start and the hanging call in the journal");
  assert.ok(c.pids.length >= 4, "the harness and the call should have recorded their children");
  for (const pid of c.pids) assert.ok(isRunning(pid), `process ${pid} died with its owner`);
}

/** Crash an owner in a fresh workspace, run `body`, and end the crashed groups if it failed. */
async function afterCrash(
  body: (root: string, state: string, c: Crashed) => Promise<void>,
): Promise<void> {
  await using ws = await sessionWorkspace();
  const state = join(ws.root, ".state");
  const crashed = await crashOwner(ws.root, state);
  try {
    assertAlive(crashed);
    await body(ws.root, state, crashed);
  } finally {
    await Promise.all(crashed.groups.map((g) => terminateGroup(g, { graceMs: 0 })));
  }
}

Deno.test("after kill -9 of toolhost, the next session start ends the old session's processes", async () => {
  await afterCrash(async (root, state, crashed) => {
    assert.equal(sessionEntries(state).length, 1);
    const reg = await openRegistry(root, state);
    reg.sessions.configure({ graceMs: 200 });
    try {
      assert.equal(textOf(await reg.call("put_app", { value: "after" })), "stored\n");
      for (const pid of crashed.pids) {
        assert.equal(isRunning(pid), false, `process ${pid} survived`);
      }
      assertGroupsGone(crashed.groups);
      assert.equal(sessionEntries(state).length, 1, "the stale session directory was not removed");
    } finally {
      await reg.close();
    }
    assertStateClean(state);
  });
});

Deno.test("after kill -9 of toolhost, sweepSessions ends the old session and removes its dir", async () => {
  await afterCrash(async (_root, state, crashed) => {
    const report = await sweepSessions(state, { graceMs: 200 });
    assert.deepEqual(report, {
      swept: 1,
      active: 0,
      calls: 0,
      artifacts: 1, // the killed registry's artifact store
      refused: 0,
      failed: 0,
      problems: [],
    });
    for (const pid of crashed.pids) assert.equal(isRunning(pid), false, `process ${pid} survived`);
    assertGroupsGone(crashed.groups);
    assertStateClean(state);
  });
});

Deno.test("after kill -9 of toolhost, the next `toolhost tools call` leaves nothing of the old session", async () => {
  await afterCrash(async (root, state, crashed) => {
    const argv = [
      "tools",
      "call",
      "get_app",
      "--repo",
      root,
      "--eval",
      "app/review",
      "--state-dir",
      state,
    ];
    const r = await runCapture(argv);
    assert.equal(r.code, 1, r.err); // a fresh session holds no value: `cat` fails
    for (const pid of crashed.pids) assert.equal(isRunning(pid), false, `process ${pid} survived`);
    assertGroupsGone(crashed.groups);
    assertStateClean(state);
  });
});

Deno.test("after kill -9 of toolhost, `toolhost sweep` ends the old session and exits 0", async () => {
  await afterCrash(async (root, state, crashed) => {
    const r = await runCapture(["sweep", "--repo", root, "--state-dir", state, "--json"]);
    assert.equal(r.code, 0, r.err);
    assert.equal(JSON.parse(r.out).swept, 1);
    for (const pid of crashed.pids) assert.equal(isRunning(pid), false, `process ${pid} survived`);
    assertGroupsGone(crashed.groups);
    assertStateClean(state);
  });
});
