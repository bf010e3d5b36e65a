/**
 * Records read back from disk are parsed strictly (`parseStoredRecord`) and verified
 * fail-closed against the live system (`verifyStoredGroup`) before anything is signalled.
 */

import assert from "node:assert/strict";
import process from "node:process";
import { isSignallable, verifyStoredGroup } from "../../lib/process/kill_group.ts";
import {
  currentBootId,
  parseStoredRecord,
  PID_MAX,
  readProcStat,
} from "../../lib/process/proc_identity.ts";
import { spawnGroup } from "../../lib/process/spawn_group.ts";
import { newGroupTag } from "../../lib/process/escape_reaper.ts";
import { readFileSync } from "node:fs";
import { ENV } from "./helpers.ts";

const BOOT = currentBootId()!;

Deno.test("parseStoredRecord accepts only complete identities", () => {
  const ok = { pid: 4242, pgid: 4242, startTime: 7, bootId: BOOT, tag: "0a".repeat(16) };
  assert.deepEqual(parseStoredRecord({ ...ok, extra: "ignored" }), ok);
  const bad: Record<string, unknown>[] = [
    { ...ok, tag: undefined },
    { ...ok, tag: null },
    { ...ok, tag: "" },
    { ...ok, tag: "0a".repeat(15) },
    { ...ok, tag: "0a".repeat(17) },
    { ...ok, tag: "0A".repeat(16) },
    { ...ok, tag: `${"0a".repeat(15)}0\u0000` },
    { ...ok, tag: 12345 },
    { ...ok, startTime: null },
    { ...ok, startTime: undefined },
    { ...ok, startTime: -1 },
    { ...ok, startTime: 1.5 },
    { ...ok, startTime: "7" },
    { ...ok, bootId: null },
    { ...ok, bootId: undefined },
    { ...ok, bootId: "" },
    { ...ok, bootId: "x".repeat(65) },
    { ...ok, bootId: "../../etc" },
    { ...ok, pid: 0, pgid: 0 },
    { ...ok, pid: 1, pgid: 1 },
    { ...ok, pid: -4242, pgid: -4242 },
    { ...ok, pid: 4242.5, pgid: 4242.5 },
    { ...ok, pid: "4242", pgid: "4242" },
    { ...ok, pid: PID_MAX + 1, pgid: PID_MAX + 1 },
    { ...ok, pid: 2 ** 53, pgid: 2 ** 53 },
    { ...ok, pgid: 0 },
    { ...ok, pgid: 4243 },
  ];
  for (const b of bad) assert.equal(parseStoredRecord(b), null, JSON.stringify(b));
  for (const v of [null, 7, "x", []]) assert.equal(parseStoredRecord(v), null);
});

Deno.test("isSignallable refuses pid 0/1, other groups and this process", () => {
  const me = readProcStat(process.pid)!;
  assert.equal(isSignallable({ pid: 4242, pgid: 4242, startTime: 1, bootId: BOOT }), true);
  for (
    const [pid, pgid] of [
      [0, 0],
      [1, 1],
      [2, 0],
      [-5, -5],
      [PID_MAX + 1, PID_MAX + 1],
      [4242, 4243],
      [process.pid, process.pid],
      [me.pgrp, me.pgrp],
      [me.sid, me.sid],
    ]
  ) {
    assert.equal(isSignallable({ pid, pgid, startTime: 1, bootId: BOOT }), false, `${pid}`);
  }
});

Deno.test("verifyStoredGroup: only a live leader with the exact identity is ours", async () => {
  const h = await spawnGroup({ command: "/bin/sleep", args: ["30"], cwd: "/", env: ENV });
  h.stdout.resume();
  h.stderr.resume();
  try {
    const r = h.record;
    assert.equal(verifyStoredGroup(r), "ours");
    assert.equal(verifyStoredGroup({ ...r, startTime: r.startTime! + 1 }), "gone");
    assert.equal(verifyStoredGroup({ ...r, startTime: r.startTime! - 1 }), "gone");
    assert.equal(
      verifyStoredGroup({ ...r, bootId: "00000000-0000-0000-0000-000000000000" }),
      "gone",
    );
    assert.equal(verifyStoredGroup({ ...r, startTime: null }), "invalid");
    assert.equal(verifyStoredGroup({ ...r, bootId: null }), "invalid");
    assert.equal(verifyStoredGroup({ ...r, pgid: r.pid + 1 }), "invalid");
  } finally {
    await h.terminate({ graceMs: 0 });
  }
  await h.exited;
  assert.equal(verifyStoredGroup(h.record), "gone");
  for (const pid of [0, 1, -1]) {
    assert.equal(verifyStoredGroup({ pid, pgid: pid, startTime: 0, bootId: BOOT }), "invalid");
  }
});

/** A group whose leader exits at once, leaving `member` (a shell command) running in it. */
/** Wait until process `pid` runs `/bin/sleep` (its exec happened: a launcher's or a
 * shell's argv and environment are gone). */
async function untilSleeping(pid: number): Promise<void> {
  const cmdline = () => readFileSync(`/proc/${pid}/cmdline`, "latin1");
  for (const deadline = Date.now() + 60_000; !cmdline().startsWith("/bin/sleep\0");) {
    if (Date.now() > deadline) throw new Error("the process never exec'd /bin/sleep");
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function leaderless(member: string) {
  const h = await spawnGroup({
    command: "/bin/sh",
    args: ["-c", `${member} & echo $!`],
    cwd: "/",
    env: ENV,
  });
  let out = "";
  // The member keeps stdout open: read until the line with its pid, not to the end.
  const line = new Promise<void>((resolve) =>
    h.stdout.on("data", (c: Uint8Array) => {
      out += new TextDecoder().decode(c);
      if (out.includes("\n")) resolve();
    })
  );
  h.stderr.resume();
  await h.exited;
  await line;
  await untilSleeping(Number(out.trim()));
  return h;
}

Deno.test("verifyStoredGroup: a leaderless group is ours only if its members carry the tag", async () => {
  const h = await leaderless("/bin/sleep 30");
  try {
    assert.equal(verifyStoredGroup(h.record), "ours");
    assert.equal(verifyStoredGroup({ ...h.record, tag: newGroupTag() }), "unverified");
    assert.equal(verifyStoredGroup({ ...h.record, tag: undefined }), "invalid");
  } finally {
    await h.terminate({ graceMs: 0 });
  }
  assert.equal(verifyStoredGroup(h.record), "gone");
});

Deno.test("verifyStoredGroup: a member that cleared its environment is never ours", async () => {
  const h = await leaderless("env -i /bin/sleep 30");
  try {
    assert.equal(verifyStoredGroup(h.record), "unverified");
  } finally {
    await h.terminate({ graceMs: 0 });
  }
  assert.equal(verifyStoredGroup(h.record), "gone");
});

Deno.test("verifyStoredGroup: a live leader without the recorded tag is never ours", async () => {
  // The leader replaces itself with a program whose environment was cleared.
  const cleared = await spawnGroup({
    command: "/bin/sh",
    args: ["-c", "exec env -i /bin/sleep 30"],
    cwd: "/",
    env: ENV,
  });
  cleared.stdout.resume();
  cleared.stderr.resume();
  const plain = await spawnGroup({ command: "/bin/sleep", args: ["30"], cwd: "/", env: ENV });
  plain.stdout.resume();
  plain.stderr.resume();
  try {
    // Wait until the execs happened (the leaders' commands are now sleep).
    await untilSleeping(cleared.record.pid);
    await untilSleeping(plain.record.pid);
    assert.equal(verifyStoredGroup(cleared.record), "unverified");
    assert.equal(verifyStoredGroup(plain.record), "ours");
    // Another group's tag, a fresh one: not this group's secret.
    assert.equal(verifyStoredGroup({ ...plain.record, tag: cleared.record.tag }), "unverified");
    assert.equal(verifyStoredGroup({ ...plain.record, tag: newGroupTag() }), "unverified");
  } finally {
    await cleared.terminate({ graceMs: 0 });
    await plain.terminate({ graceMs: 0 });
  }
});
