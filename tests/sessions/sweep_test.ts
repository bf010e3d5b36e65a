import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnGroup } from "../../lib/process/spawn_group.ts";
import { readProcStat, recordProcess } from "../../lib/process/proc_identity.ts";
import { Journal, parseJournal } from "../../lib/sessions/journal.ts";
import {
  createSessionRoot,
  currentOwner,
  ownerIsAlive,
  type OwnerRecord,
  releaseLease,
  sessionsRoot,
} from "../../lib/sessions/session_dir.ts";
import { sweepSessions } from "../../lib/sessions/sweep.ts";
import { awaitExec } from "./_forge.ts";
import { assertGroupsGone, isRunning, openRegistry, sessionWorkspace, textOf } from "./_helpers.ts";

async function withState(body: (state: string) => Promise<void>): Promise<void> {
  const state = mkdtempSync(join(tmpdir(), "toolhost-sweep-"));
  try {
    await body(state);
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

/** An owner that has exited: a process that ran and was reaped. */
async function deadOwner(): Promise<OwnerRecord> {
  const h = await spawnGroup({ command: "/bin/sh", args: ["-c", "exit 0"], cwd: "/", env: {} });
  h.stdout.resume();
  h.stderr.resume();
  await h.exited;
  await h.terminate({ graceMs: 0 });
  return { pid: h.record.pid, startTime: h.record.startTime, bootId: h.record.bootId };
}

/** A root owned by `owner` whose journal records a live `sleep` group. */
async function rootWithGroup(state: string, owner: OwnerRecord) {
  const root = await createSessionRoot(state, owner);
  const journal = Journal.open(root.journalPath);
  const h = await spawnGroup({
    command: "/bin/sleep",
    args: ["1000"],
    cwd: "/",
    env: {},
    onSpawn: (r) => journal.admit("call", r),
  });
  h.stdout.resume();
  h.stderr.resume();
  journal.close();
  await awaitExec(h, "/bin/sleep"); // a sweep verifies the tag in its environment
  return { root, handle: h };
}

Deno.test("a root whose owner exited is swept: its recorded group is killed, the root removed", async () => {
  await withState(async (state) => {
    const { root, handle } = await rootWithGroup(state, await deadOwner());
    assert.ok(isRunning(handle.record.pid));
    const report = await sweepSessions(state, { graceMs: 100 });
    assert.deepEqual(report, {
      swept: 1,
      active: 0,
      calls: 0,
      artifacts: 0,
      refused: 0,
      failed: 0,
      problems: [],
    });
    await handle.exited;
    assertGroupsGone([handle.record]);
    assert.equal(existsSync(root.root), false);
  });
});

Deno.test("an active root (live owner, lease held) is left alone", async () => {
  await withState(async (state) => {
    const { root, handle } = await rootWithGroup(state, currentOwner());
    try {
      const report = await sweepSessions(state, { graceMs: 100 });
      assert.deepEqual(report, {
        swept: 0,
        active: 1,
        calls: 0,
        artifacts: 0,
        refused: 0,
        failed: 0,
        problems: [],
      });
      assert.ok(isRunning(handle.record.pid));
      assert.ok(existsSync(root.dir));
    } finally {
      await handle.terminate({ graceMs: 0 });
    }
  });
});

Deno.test("a released lease is swept even while its owner lives", async () => {
  await withState(async (state) => {
    const { root, handle } = await rootWithGroup(state, currentOwner());
    await releaseLease(root.root);
    const report = await sweepSessions(state, { graceMs: 100 });
    assert.deepEqual(report, {
      swept: 1,
      active: 0,
      calls: 0,
      artifacts: 0,
      refused: 0,
      failed: 0,
      problems: [],
    });
    await handle.exited;
    assert.equal(existsSync(root.root), false);
  });
});

Deno.test("an owner that exited but was never waited for (a zombie) counts as exited", async () => {
  await withState(async (state) => {
    // The child exits after its parent has exec'd into sleep, which never waits: a zombie.
    const parent = await spawnGroup({
      command: "/bin/sh",
      args: ["-c", "sleep 0.2 & echo $!; exec sleep 1000"],
      cwd: "/",
      env: { PATH: "/usr/bin:/bin" },
    });
    parent.stderr.resume();
    const zombiePid = Number(
      await new Promise<string>((r) => parent.stdout.once("data", (d) => r(String(d)))),
    );
    parent.stdout.resume();
    try {
      let stat = readProcStat(zombiePid);
      for (const end = Date.now() + 60_000; stat?.state !== "Z" && Date.now() < end;) {
        await new Promise((r) => setTimeout(r, 10));
        stat = readProcStat(zombiePid);
      }
      assert.equal(stat?.state, "Z", `pid ${zombiePid} is not a zombie`);
      const owner = { pid: zombiePid, startTime: stat!.startTime, bootId: currentOwner().bootId };
      assert.equal(ownerIsAlive(owner), false, "a zombie owner counted as alive");
      await createSessionRoot(state, owner);
      const report = await sweepSessions(state, { graceMs: 100 });
      assert.deepEqual(report, {
        swept: 1,
        active: 0,
        calls: 0,
        artifacts: 0,
        refused: 0,
        failed: 0,
        problems: [],
      });
    } finally {
      await parent.terminate({ graceMs: 0 });
    }
  });
});

Deno.test("a reused pid is never signalled: a record whose start time differs is skipped", async () => {
  await withState(async (state) => {
    const root = await createSessionRoot(state, await deadOwner());
    const victim = await spawnGroup({ command: "/bin/sleep", args: ["1000"], cwd: "/", env: {} });
    victim.stdout.resume();
    victim.stderr.resume();
    try {
      const forged = {
        ...recordProcess(victim.record.pid),
        startTime: victim.record.startTime! - 1,
      };
      const journal = Journal.open(root.journalPath);
      await journal.admit("start", forged);
      journal.close();
      const report = await sweepSessions(state, { graceMs: 100 });
      assert.equal(report.swept, 1);
      assert.ok(isRunning(victim.record.pid), "a process with a reused pid was signalled");
    } finally {
      await victim.terminate({ graceMs: 0 });
    }
  });
});

Deno.test("when a sweep cannot confirm cleanup, the journal is kept and the root stays", async () => {
  await withState(async (state) => {
    const { root, handle } = await rootWithGroup(state, await deadOwner());
    try {
      const report = await sweepSessions(state, {
        terminate: () => Promise.resolve({ confirmed: false, signalled: true }),
      });
      assert.equal(report.failed, 1);
      assert.equal(report.swept, 0);
      assert.match(report.problems[0], /could not be confirmed gone; its journal was kept/);
      assert.equal(report.problems[0].includes(state), false, "a problem names a physical path");
      assert.equal(parseJournal(Deno.readTextFileSync(root.journalPath)).length, 1);
      const again = await sweepSessions(state, { graceMs: 100 });
      assert.equal(again.swept, 1);
      assertGroupsGone([handle.record]);
    } finally {
      await handle.terminate({ graceMs: 0 });
    }
  });
});

Deno.test("a new session is refused with a clear error when the sweep fails", async () => {
  await using ws = await sessionWorkspace();
  const state = join(ws.root, ".state");
  const { root, handle } = await rootWithGroup(state, await deadOwner());
  const reg = await openRegistry(ws.root, state);
  reg.sessions.configure({
    sweep: { terminate: () => Promise.resolve({ confirmed: false, signalled: true }) },
  });
  try {
    const r = await reg.call("put_app", { value: "x" });
    const refused =
      "The tool session `app` was refused: earlier tool sessions or calls in the state directory could not be cleaned up; run `toolhost sweep` and end the processes it reports.";
    assert.deepEqual(r, { content: [{ type: "text", text: refused }], isError: true });
    assert.equal(textOf(await reg.call("get_app", {})), refused);
    assert.equal(existsSync(join(ws.root, "app/starts.log")), false, "the session was admitted");
    assert.deepEqual(readdirSync(sessionsRoot(state)), [root.root.split("/").pop()]);
    assert.equal(parseJournal(Deno.readTextFileSync(root.journalPath)).length, 1, "journal lost");
  } finally {
    await reg.close();
    await handle.terminate({ graceMs: 0 });
  }
});

Deno.test("sweeping a state dir without sessions creates nothing", async () => {
  await withState(async (state) => {
    assert.deepEqual(await sweepSessions(state), {
      swept: 0,
      active: 0,
      calls: 0,
      artifacts: 0,
      refused: 0,
      failed: 0,
      problems: [],
    });
    assert.deepEqual(readdirSync(state), []);
    // A file of someone else's in the sessions folder is neither swept nor counted.
    mkdirSync(sessionsRoot(state), { recursive: true });
    writeFileSync(join(sessionsRoot(state), "unrelated"), "x");
    assert.deepEqual(await sweepSessions(state), {
      swept: 0,
      active: 0,
      calls: 0,
      artifacts: 0,
      refused: 0,
      failed: 0,
      problems: [],
    });
    assert.deepEqual(readdirSync(sessionsRoot(state)), ["unrelated"]);
  });
});

Deno.test("sweep: a state directory that is a file is named as the cause", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-sweep-file-"));
  try {
    const file = join(dir, "state");
    writeFileSync(file, "not a folder");
    const report = await sweepSessions(file);
    assert.ok(report.failed > 0, JSON.stringify(report));
    for (const f of report.problems) {
      assert.match(f, /folder could not be read: the state directory is not a directory/);
      assert.ok(!f.includes(dir), "a physical path in the report");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
