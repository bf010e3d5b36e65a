import assert from "node:assert/strict";
import process from "node:process";
import { inspectGroup, signalGroup } from "../../lib/process/kill_group.ts";
import {
  isSameProcess,
  parseProcStat,
  readProcStat,
  recordProcess,
  scanGroup,
} from "../../lib/process/proc_identity.ts";
import { killLiveGroupsSync, spawnGroup } from "../../lib/process/spawn_group.ts";
import { assertGroupGone, ENV } from "./helpers.ts";

Deno.test("parseProcStat counts fields from the last parenthesis", () => {
  const line = "42 (we) ird (name) S 7 42 42 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 98765 1 2";
  const s = parseProcStat(line);
  // ticks = utime + stime + cutime + cstime (fields 14–17: 5 + 6 + 7 + 8)
  assert.deepEqual(s, {
    pid: 42,
    state: "S",
    ppid: 7,
    pgrp: 42,
    sid: 42,
    startTime: 98765,
    ticks: 26,
    threads: 1, // field 20
  });
  assert.equal(parseProcStat("garbage"), null);
  assert.equal(parseProcStat("1 (x) S 1 2"), null);
});

Deno.test("readProcStat and recordProcess describe the current process", () => {
  const me = readProcStat(process.pid);
  assert.ok(me !== null && me.startTime > 0);
  const rec = recordProcess(process.pid);
  assert.equal(rec.startTime, me.startTime);
  assert.ok(isSameProcess(rec));
  assert.equal(isSameProcess({ ...rec, startTime: rec.startTime! + 1 }), false);
  assert.equal(isSameProcess({ ...rec, bootId: "another-boot" }), false);
  assert.equal(readProcStat(-1), null);
  assert.equal(readProcStat(2 ** 31), null);
});

Deno.test("spawnGroup makes the child leader of its own session and group", async () => {
  const h = await spawnGroup({ command: "/bin/sleep", args: ["30"], cwd: "/", env: ENV });
  try {
    const st = readProcStat(h.record.pid);
    assert.ok(st !== null);
    assert.equal(st.pgrp, h.record.pid);
    assert.equal(st.sid, h.record.pid);
    assert.equal(h.record.pgid, h.record.pid);
    assert.equal(st.startTime, h.record.startTime);
    assert.notEqual(st.pgrp, readProcStat(process.pid)?.pgrp);
  } finally {
    h.stdout.resume();
    h.stderr.resume();
    assert.ok((await h.terminate({ graceMs: 500 })).confirmed);
  }
  assert.equal((await h.exited).signal, "SIGTERM");
  assertGroupGone(h.record);
});

Deno.test("a record whose start time does not match is never signalled", async () => {
  const h = await spawnGroup({ command: "/bin/sleep", args: ["30"], cwd: "/", env: ENV });
  h.stdout.resume();
  h.stderr.resume();
  try {
    const stale = { ...h.record, startTime: h.record.startTime! - 1 };
    assert.equal(inspectGroup(stale).ours, false);
    assert.equal(signalGroup(stale, "SIGKILL"), "gone");
    const otherBoot = { ...h.record, bootId: "00000000-0000-0000-0000-000000000000" };
    assert.equal(signalGroup(otherBoot, "SIGKILL"), "gone");
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(readProcStat(h.record.pid)?.state !== "Z", true, "the process must still run");
    assert.equal(inspectGroup(h.record).ours, true);
  } finally {
    await h.terminate({ graceMs: 500 });
  }
  assertGroupGone(h.record);
});

Deno.test("a group whose leader exited is still found and ended through its members", async () => {
  // The leader exits at once; a background child keeps the group (and its number) alive.
  const h = await spawnGroup({
    command: "/bin/sh",
    args: ["-c", "trap '' TERM; sleep 30 & echo $!"],
    cwd: "/",
    env: ENV,
  });
  let out = "";
  h.stdout.on("data", (d: Uint8Array) => (out += new TextDecoder().decode(d)));
  h.stderr.resume();
  await h.exited;
  const child = Number(out.trim());
  assert.ok(child > 0);
  assert.equal(readProcStat(h.record.pid), null, "leader reaped");
  const view = inspectGroup(h.record);
  assert.equal(view.ours, true);
  assert.deepEqual(view.live.map((p) => p.pid), [child]);
  // A foreign record with a later start time than the member refuses the group.
  assert.equal(inspectGroup({ ...h.record, startTime: view.live[0].startTime + 1 }).ours, false);
  const rep = await h.terminate({ graceMs: 100 });
  assert.deepEqual(rep, { confirmed: true, signalled: true });
  assertGroupGone(h.record);
  assert.deepEqual(scanGroup(h.record.pgid).members.filter((p) => p.state !== "Z"), []);
});

Deno.test("stderr: ignore sends stderr to /dev/null; killLiveGroupsSync is a last resort", async () => {
  const h = await spawnGroup({
    command: "/bin/sh",
    args: ["-c", "readlink /proc/self/fd/2; echo noise >&2; exec sleep 30"],
    cwd: "/",
    env: ENV,
    stderr: "ignore",
  });
  let out = "";
  h.stdout.on("data", (d: Uint8Array) => (out += new TextDecoder().decode(d)));
  for (const end = Date.now() + 60_000; !out.includes("\n") && Date.now() < end;) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(out.trim(), "/dev/null"); // the child's stderr is /dev/null itself
  assert.ok(killLiveGroupsSync() >= 1);
  assert.equal((await h.exited).signal, "SIGKILL");
  assert.ok((await h.terminate()).confirmed);
  assertGroupGone(h.record);
  assert.equal(killLiveGroupsSync(), 0);
});

Deno.test("a plain call's group is killed even when the process dies of an uncaught error", async () => {
  // Deno skips the `exit` event on an uncaught error; the last-resort hook must still run.
  const script = `
    import { spawnGroup } from ${
    JSON.stringify(new URL("../../lib/process/spawn_group.ts", import.meta.url).href)
  };
    const h = await spawnGroup({ command: "/bin/sleep", args: ["30"], cwd: "/", env: {} });
    console.log(h.record.pid);
    throw new Error("boom");
  `;
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.notEqual(r.code, 0);
  const pid = Number(new TextDecoder().decode(r.stdout).trim());
  assert.ok(pid > 0, new TextDecoder().decode(r.stderr));
  let alive = true;
  for (let i = 0; i < 100 && alive; i++) {
    try {
      const st = Deno.readTextFileSync(`/proc/${pid}/stat`);
      alive = !/\) [ZX] /.test(st);
    } catch {
      alive = false;
    }
    if (alive) await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(alive, false, "the tool's process outlived the toolhost process");
});
