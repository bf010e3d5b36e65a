/**
 * Every scan of `/proc` is bounded in entries and in time, and a scan cut by its budget is
 * reported as incomplete — never as "the group is gone" or "nothing escaped". The budgets
 * are injected through the scans' own options (a fake `/proc` directory, a tiny entry
 * budget, a zero time budget): no test creates thousands of real processes.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { inspectGroup, signalGroup, terminateGroup } from "../../lib/process/kill_group.ts";
import { DEFAULT_SCAN_ENTRIES, scanPids } from "../../lib/process/proc_budget.ts";
import { liveGroupMembers, readProcStat, scanGroup } from "../../lib/process/proc_identity.ts";
import {
  carriesGroupTag,
  GROUP_TAG_VAR,
  newGroupTag,
  reapEscapesConfirmed,
  reapTagged,
} from "../../lib/process/escape_reaper.ts";
import { spawn } from "node:child_process";
import { spawnGroup } from "../../lib/process/spawn_group.ts";
import { childPidsBounded } from "../../lib/process/sandbox_init.ts";
import { ENV } from "./helpers.ts";

/** A fake `/proc`: `n` numeric entries (and a few others), removed afterwards. */
function withFakeProc(n: number, body: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-fakeproc-"));
  try {
    for (let i = 0; i < n; i++) writeFileSync(join(dir, String(100_000 + i)), "");
    for (const name of ["self", "loadavg", "sys"]) writeFileSync(join(dir, name), "");
    body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

Deno.test("scanPids stops at its entry budget and says so", () => {
  withFakeProc(3000, (dir) => {
    const whole = scanPids(() => {}, { dir });
    assert.deepEqual(whole, { complete: true, visited: 3000 });
    let seen = 0;
    const cut = scanPids(() => {
      seen++;
    }, { dir, maxEntries: 500 });
    assert.equal(cut.complete, false);
    assert.equal(cut.cut, "entries");
    assert.ok(seen <= 500, `visited ${seen} entries past a budget of 500`);
  });
  assert.equal(DEFAULT_SCAN_ENTRIES, 65_536);
});

Deno.test("scanPids stops at its time budget and says so", () => {
  withFakeProc(200, (dir) => {
    let seen = 0;
    const out = scanPids(() => {
      seen++;
    }, { dir, maxMs: 0 });
    assert.deepEqual(out, { complete: false, cut: "time", visited: 0 });
    assert.equal(seen, 0);
  });
  // A visitor that stops the scan itself leaves it complete (it has what it needs).
  assert.equal(scanPids(() => false).complete, true);
});

Deno.test("a group scan cut by its budget is incomplete, not empty", () => {
  const scan = scanGroup(process.pid, { maxEntries: 1 });
  assert.equal(scan.complete, false);
  const live = liveGroupMembers(process.pid, { maxMs: 0 });
  assert.deepEqual(live, { members: [], complete: false });
  assert.equal(scanGroup(process.pid).complete, true);
});

/** A group whose leader exited while a member (sleep) runs on: judged by a full scan. */
async function leaderlessGroup() {
  const h = await spawnGroup({
    command: "/bin/sh",
    args: ["-c", "/bin/sleep 60 & echo $!"],
    cwd: "/",
    env: ENV,
  });
  h.stderr.resume();
  let out = "";
  h.stdout.on("data", (c) => (out += c));
  await h.exited;
  const member = Number(out.trim());
  assert.ok(readProcStat(member)?.pgrp === h.record.pgid, "the member is not in the group");
  return { h, member };
}

Deno.test("a leaderless group not seen whole is unconfirmed: never signalled, never gone", async () => {
  const { h, member } = await leaderlessGroup();
  try {
    const view = inspectGroup(h.record, { maxEntries: 1 });
    assert.deepEqual(view, { ours: false, live: [], complete: false });
    assert.equal(signalGroup(h.record, "SIGKILL", { maxEntries: 1 }), "unconfirmed");
    const report = await terminateGroup(h.record, {
      graceMs: 0,
      killBoundMs: 20,
      scan: { maxMs: 0 },
    });
    assert.equal(report.confirmed, false, "a group that was never seen whole was confirmed gone");
    assert.equal(report.signalled, false);
    assert.notEqual(readProcStat(member)?.state ?? "Z", "Z", "an unconfirmed group was signalled");
    // With room to look, the same group is ours and is ended.
    assert.equal(inspectGroup(h.record).ours, true);
  } finally {
    assert.ok((await terminateGroup(h.record, { graceMs: 0 })).confirmed);
  }
});

Deno.test("a verified leader is still signalled when the member scan is cut", async () => {
  const h = await spawnGroup({ command: "/bin/sleep", args: ["60"], cwd: "/", env: ENV });
  h.stdout.resume();
  h.stderr.resume();
  try {
    const view = inspectGroup(h.record, { maxEntries: 1 });
    assert.equal(view.ours, true);
    assert.equal(view.complete, false);
    assert.deepEqual(view.live.map((p) => p.pid), [h.record.pid]);
    assert.equal(signalGroup(h.record, "SIGKILL", { maxEntries: 1 }), "signalled");
    assert.equal((await h.exited).signal, "SIGKILL");
  } finally {
    await h.terminate({ graceMs: 0 });
  }
});

Deno.test("the escape reaper reports a cut scan as incomplete", async () => {
  const group = { tag: "0".repeat(32), pid: 1, startTime: 0 };
  assert.equal(reapTagged(group, { maxMs: 0 }).complete, false);
  withFakeProc(100, (dir) => {
    assert.equal(reapTagged(group, { dir, maxEntries: 10 }).complete, false);
    assert.equal(reapTagged(group, { dir }).complete, true);
  });
  assert.equal(await reapEscapesConfirmed(group, 10, { maxMs: 0 }), false);
  assert.equal(await reapEscapesConfirmed(group, 10), true);
});

Deno.test("a process's threads are read within a budget; a cut listing says so", () => {
  // This runtime runs several threads: a budget of one cannot read them all.
  const threads = [...Deno.readDirSync(`/proc/${process.pid}/task`)].length;
  assert.ok(threads > 1, "expected a multi-threaded runtime");
  assert.equal(childPidsBounded(process.pid, { maxEntries: 1 }).complete, false);
  assert.equal(childPidsBounded(process.pid, { maxMs: 0 }).complete, false);
  assert.equal(childPidsBounded(process.pid).complete, true);
});

Deno.test("a group tag is found in a large environment, across the read chunks", async () => {
  const tag = newGroupTag();
  // BIG=<pad>\0_TOOLHOST_GROUP_TAG=<tag>\0: the entry starts 10 bytes before the 64 KiB
  // boundary of the streaming read (its NUL at offset 4 + pad).
  // A single string may not exceed 128 KiB: the larger case uses two.
  const cases = [{ BIG: "x".repeat(65_522) }, { A: "a".repeat(70_000), B: "b".repeat(70_000) }];
  for (const pads of cases) {
    const pad = JSON.stringify(Object.keys(pads));
    const child = spawn("/bin/sleep", ["60"], {
      env: { ...pads, [GROUP_TAG_VAR]: tag },
      stdio: "ignore",
    });
    const exited = new Promise((r) => child.once("exit", r));
    try {
      // Until it has exec'd, the child's environment is still this process's; and the
      // kernel names the new program (comm) before it sets up the new environment, which
      // reads as empty until then.
      await waitUntil(() => {
        try {
          return Deno.readTextFileSync(`/proc/${child.pid}/comm`) === "sleep\n" &&
            Deno.readFileSync(`/proc/${child.pid}/environ`).length > 0;
        } catch {
          return false;
        }
      });
      assert.equal(carriesGroupTag(child.pid!, tag), true, `pad ${pad}`);
      assert.equal(carriesGroupTag(child.pid!, newGroupTag()), false);
      const reaped = reapTagged({ tag, pid: child.pid! - 1, startTime: 0 });
      assert.deepEqual(reaped.killed.map((p) => p.pid), [child.pid]);
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  }
});

async function waitUntil(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 5));
}
