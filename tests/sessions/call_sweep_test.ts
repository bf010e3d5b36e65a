/**
 * Ordinary (non-session) command calls journal their owner and process group in their
 * call directory, so after `kill -9` of `toolhost tools call`, `toolhost sweep`
 * (and the sweep before every session start) ends the orphaned group and removes the
 * directory — while a call whose owner still runs is never touched.
 */

import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { callsRoot, claimOwnedDir, createCallDirs } from "../../lib/process/call_dirs.ts";
import { readProcStat } from "../../lib/process/proc_identity.ts";
import { sweepSessions } from "../../lib/sessions/sweep.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { cliCommand, runCapture } from "../helpers/cli.ts";
import { BASE_TOML, type TempWorkspace, tempWorkspace, toolTable } from "../helpers/workspace.ts";
import { ENV, openRegistry, sessionWorkspace, textOf, waitFor } from "./_helpers.ts";
import {
  admitLine,
  assertNeverSignalled,
  DEAD_OWNER,
  forgeFolder,
  running,
  spawnVictim,
  withState,
} from "./_forge.ts";
import { callDirKinds } from "../helpers/made_ahead.ts";

const CALL = "0123456789abcdef01234567";

/** A json tool that records its pid and its child's, then hangs. */
const HANG = `#!/bin/sh
cat >/dev/null
echo $$ > leader.pid
sleep 1000 &
echo $! > child.pid
wait
`;

function hangWorkspace(): Promise<TempWorkspace> {
  const toml = BASE_TOML + toolTable("app", "hang", {
    description: "Hang.",
    protocol: "json",
    command: "./hang.sh",
    args: [],
  });
  return tempWorkspace(toml, {
    "app/README.md": "# app\n",
    "app/hang.sh": { text: HANG, mode: 0o755 },
  });
}

function callDirs(state: string): string[] {
  const calls = callsRoot(state);
  return existsSync(calls) ? readdirSync(calls) : [];
}

function pidIn(path: string): number {
  return existsSync(path) ? Number(readFileSync(path, "utf8").trim()) : 0;
}

/** End the hang tool's group by its recorded leader (test cleanup; it leads its group). */
function killHang(app: string): void {
  const leader = pidIn(join(app, "leader.pid"));
  const st = leader > 1 ? readProcStat(leader) : null;
  if (st !== null && st.pgrp === leader && st.sid === leader) {
    try {
      process.kill(-leader, "SIGKILL");
    } catch { /* already gone */ }
  }
  const child = pidIn(join(app, "child.pid"));
  const cst = child > 1 ? readProcStat(child) : null;
  if (cst !== null && cst.sid === leader) {
    try {
      process.kill(child, "SIGKILL");
    } catch { /* already gone */ }
  }
}

Deno.test("a command call journals its owner and its process group in its call directory", async () => {
  await using ws = await hangWorkspace();
  const state = join(ws.root, ".state");
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    stateDir: state,
    env: ENV,
  });
  const ctl = new AbortController();
  const app = join(ws.root, "app");
  try {
    const call = reg.call("hang_app", {}, { signal: ctl.signal });
    await waitFor(() => pidIn(join(app, "child.pid")) > 0, 120_000, "the tool to start");
    // Its own directory, not the next call's made ahead while it runs (no journal).
    const [name, ...more] = callDirKinds(state).journaled;
    assert.deepEqual(more, []);
    const dir = join(callsRoot(state), name);
    const owner = JSON.parse(readFileSync(join(dir, "owner.json"), "utf8"));
    const me = readProcStat(process.pid)!;
    assert.deepEqual(owner, {
      pid: process.pid,
      startTime: me.startTime,
      bootId: owner.bootId,
      pidNs: readlinkSync("/proc/self/ns/pid"),
    });
    assert.equal(typeof owner.bootId, "string");
    const [line] = readFileSync(join(dir, "journal.jsonl"), "utf8").trim().split("\n");
    const admitted = JSON.parse(line);
    const leader = pidIn(join(app, "leader.pid"));
    assert.deepEqual(admitted, {
      op: "admit",
      role: "call",
      pid: leader,
      pgid: leader,
      startTime: readProcStat(leader)!.startTime,
      bootId: owner.bootId,
      tag: admitted.tag,
    });
    // The group's secret is the tag in the tool's own environment.
    assert.match(admitted.tag, /^[0-9a-f]{32}$/);
    const environ = readFileSync(`/proc/${leader}/environ`, "latin1").split("\0");
    assert.ok(environ.includes(`_TOOLHOST_GROUP_TAG=${admitted.tag}`));
    // A live owner's call is never touched, whatever its age.
    const report = await sweepSessions(state, { graceMs: 100, ownerlessAgeMs: 0 });
    assert.equal(report.calls, 0);
    assert.ok(running(leader) && existsSync(dir));
    ctl.abort();
    assert.equal((await call).isError, true);
    assert.deepEqual(callDirKinds(state).journaled, []);
  } finally {
    ctl.abort();
    killHang(app);
    await reg.close();
  }
  assert.deepEqual(callDirs(state), [], "close removes the directories made ahead");
});

// SIGHUP, SIGINT and SIGTERM are cleaned up by `tools call` itself (tests/cli/
// tools_call_signals_test.ts); only a kill that runs no handler leaves work for sweep.
for (const signal of ["SIGKILL"] as const) {
  Deno.test(`after ${signal} of \`toolhost tools call\`, \`toolhost sweep\` ends its group and removes its call directory and artifact store`, async () => {
    await using ws = await hangWorkspace();
    const state = join(ws.root, ".state");
    const app = join(ws.root, "app");
    const child = cliCommand(
      [
        "tools",
        "call",
        "hang_app",
        "--eval",
        "app/review",
        "--repo",
        ws.root,
        "--state-dir",
        state,
      ],
      { stdout: "null", stderr: "null" },
    ).spawn();
    try {
      await waitFor(() => pidIn(join(app, "child.pid")) > 0, 120_000, "the tool to start");
      const leader = pidIn(join(app, "leader.pid"));
      const grandchild = pidIn(join(app, "child.pid"));
      // While the toolhost process lives, its call is left alone.
      const before = await sweepSessions(state, { graceMs: 100, ownerlessAgeMs: 0 });
      assert.equal(before.calls, 0);
      assert.equal(before.artifacts, 0, "a live registry's artifact store was swept");
      assert.equal(readdirSync(join(state, "artifacts")).length, 1);
      assert.ok(running(leader));
      child.kill(signal);
      await child.status;
      await new Promise((r) => setTimeout(r, 100));
      assert.ok(running(grandchild), "precondition: the orphaned group outlives toolhost");
      assert.equal(callDirs(state).length, 1, "precondition: the call directory remains");
      const r = await runCapture(["sweep", "--repo", ws.root, "--state-dir", state, "--json"]);
      assert.equal(r.code, 0, r.err);
      const report = JSON.parse(r.out);
      assert.equal(report.calls, 1);
      assert.equal(report.artifacts, 1, "the killed registry's artifact store was left");
      assert.equal(report.refused, 0);
      await waitFor(() => !running(leader) && !running(grandchild), 120_000, "the group to end");
      assert.deepEqual(callDirs(state), []);
      assert.deepEqual(readdirSync(join(state, "artifacts")), []);
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* already exited */ }
      await child.status;
      killHang(app);
    }
  });
}

Deno.test("a forged call directory never gets a process signalled", async () => {
  await withState(async (state) => {
    const victim = await spawnVictim();
    try {
      const line = admitLine({
        pid: victim.record.pid,
        pgid: victim.record.pid,
        startTime: null,
        bootId: null,
      });
      const dir = forgeFolder(state, "calls", CALL, [line]);
      const report = await sweepSessions(state, { graceMs: 100 });
      await assertNeverSignalled(victim, "a forged call journal got its victim signalled");
      assert.equal(report.refused, 1);
      assert.equal(report.calls, 1);
      assert.equal(existsSync(dir), false);
    } finally {
      await victim.terminate({ graceMs: 0 });
    }
  });
});

Deno.test("call directories: ownerless ones wait for their age; symlinks are never followed", async () => {
  await withState(async (state) => {
    const outside = join(state, "outside");
    mkdirSync(join(outside, "keep"), { recursive: true });
    writeFileSync(join(outside, "keep", "owner.json"), JSON.stringify(DEAD_OWNER));
    mkdirSync(callsRoot(state));
    const young = join(callsRoot(state), CALL);
    mkdirSync(young);
    symlinkSync(join(outside, "keep"), join(callsRoot(state), "0123456789abcdef0123456f"));
    assert.equal((await sweepSessions(state)).calls, 0);
    assert.ok(existsSync(young));
    const report = await sweepSessions(state, { ownerlessAgeMs: 0 });
    assert.equal(report.calls, 1);
    assert.equal(existsSync(young), false);
    assert.ok(existsSync(join(outside, "keep", "owner.json")), "followed a symlinked call dir");
    rmSync(callsRoot(state), { recursive: true });
    symlinkSync(outside, callsRoot(state));
    const linked = await sweepSessions(state, { ownerlessAgeMs: 0 });
    assert.equal(linked.failed, 1);
    assert.match(linked.problems[0], /calls folder is not a directory/);
    assert.ok(existsSync(join(outside, "keep", "owner.json")));
  });
});

Deno.test("a call whose group cannot be confirmed gone keeps its records for a sweep", async () => {
  await withState(async (state) => {
    const victim = await spawnVictim(); // stands in for a group that survived SIGKILL
    try {
      const dirs = await createCallDirs(state);
      dirs.admit(victim.record);
      await assert.rejects(dirs.remove(), /could not be confirmed gone/);
      assert.deepEqual(readdirSync(dirs.root).sort(), ["journal.jsonl", "owner.json"]);
      rmSync(dirs.root, { recursive: true });
    } finally {
      await victim.terminate({ graceMs: 0 });
    }
  });
});

Deno.test("only a group retired (confirmed ended) is not looked for again at removal", async () => {
  await withState(async (state) => {
    const victim = await spawnVictim();
    try {
      const dirs = await createCallDirs(state);
      dirs.admit(victim.record);
      dirs.retire({ ...victim.record, startTime: (victim.record.startTime ?? 0) + 1 }); // not it
      await assert.rejects(dirs.remove(), /could not be confirmed gone/);
      const again = await createCallDirs(state);
      again.admit(victim.record);
      again.retire(victim.record); // the caller vouches that it ended
      await again.remove();
      assert.equal(existsSync(again.root), false);
      rmSync(dirs.root, { recursive: true });
    } finally {
      await victim.terminate({ graceMs: 0 });
    }
  });
});

Deno.test("the sweep before a session start ends a stale call's verified group", async () => {
  await using ws = await sessionWorkspace();
  const state = join(ws.root, ".state");
  const orphan = await spawnVictim(); // a call group whose toolhost was killed
  try {
    const r = orphan.record;
    const line = admitLine({ ...r }); // pid, pgid, start time, boot id and its secret tag
    const dir = forgeFolder(state, "calls", CALL, [line]);
    const reg = await openRegistry(ws.root, state);
    try {
      assert.equal(textOf(await reg.call("put_app", { value: "x" })), "stored\n");
      await waitFor(() => !running(r.pid), 120_000, "the stale call's group to end");
      assert.equal(existsSync(dir), false);
    } finally {
      await reg.close();
    }
  } finally {
    await orphan.terminate({ graceMs: 0 });
  }
});

Deno.test("artifact stores: a dead owner's is removed; a live or young unrecorded one is kept", async () => {
  await withState(async (state) => {
    const root = join(state, "artifacts");
    const dead = join(root, "aaaaaaaaaaaaaaaaaaaaaaaa");
    const live = join(root, "bbbbbbbbbbbbbbbbbbbbbbbb");
    const bare = join(root, "cccccccccccccccccccccccc");
    for (const d of [dead, live, bare]) mkdirSync(join(d, "read_app"), { recursive: true });
    writeFileSync(join(dead, "owner.json"), JSON.stringify(DEAD_OWNER));
    writeFileSync(join(dead, "read_app", "out.txt"), "spilled\n");
    claimOwnedDir(live);
    claimOwnedDir(live); // a second claim keeps the first record
    const link = join(root, "dddddddddddddddddddddddd");
    symlinkSync(dead, link); // never followed, never removed
    const report = await sweepSessions(state, { graceMs: 100 });
    assert.equal(report.artifacts, 1, JSON.stringify(report));
    assert.equal(existsSync(dead), false);
    assert.ok(existsSync(join(live, "read_app")) && existsSync(join(bare, "read_app")));
    assert.equal(JSON.parse(readFileSync(join(live, "owner.json"), "utf8")).pid, process.pid);
    assert.ok(lstatSync(link).isSymbolicLink());
    // Unrecorded and unchanged past the ownerless age: a store whose maker was killed
    // before it claimed it.
    const old = await sweepSessions(state, { graceMs: 100, ownerlessAgeMs: 0 });
    assert.equal(old.artifacts, 1, JSON.stringify(old));
    assert.equal(existsSync(bare), false);
    assert.ok(existsSync(join(live, "read_app")));
  });
});
