/**
 * Identities that cannot be forged (issue 16): a journal is a file in the state directory
 * that any tool (or a cloned repository) can write, and a process's pid, start time and
 * boot id are public in `/proc`. `toolhost sweep` must therefore signal a recorded group
 * only when its leader (or, once the leader is gone, each running member) also carries
 * the group's secret tag in its environment — which only its own user or root can read.
 * Every forged entry here copies the victim's exact pid, start time and boot id.
 */

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { newGroupTag } from "../../lib/process/escape_reaper.ts";
import { currentBootId, readProcStat } from "../../lib/process/proc_identity.ts";
import { sweepSessions } from "../../lib/sessions/sweep.ts";
import { runCapture } from "../helpers/cli.ts";
import { BASE_FILES, BASE_TOML, tempWorkspace } from "../helpers/workspace.ts";
import { waitFor } from "./_helpers.ts";
import {
  admitLine,
  forgeFolder,
  running,
  spawnVictim,
  spyTerminator,
  withState,
} from "./_forge.ts";

const ROOT = "00000000000000dd";
const BOOT = currentBootId()!;

/** A process toolhost never started, leading its own session (like `setsid sleep`). */
async function foreignVictim(): Promise<{ pid: number; startTime: number; child: ChildProcess }> {
  const child = spawn("/bin/sleep", ["1000"], { detached: true, stdio: "ignore" });
  const pid = child.pid!;
  await waitFor(() => readProcStat(pid)?.sid === pid, 60_000, "the victim to start");
  return { pid, startTime: readProcStat(pid)!.startTime, child };
}

function end(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Forge a stale session root naming `fields`, run `toolhost sweep`, return its report. */
async function cliSweep(lines: string[]) {
  await using ws = await tempWorkspace(BASE_TOML, BASE_FILES);
  const state = join(ws.root, ".toolhost", "state");
  forgeFolder(state, "sessions", ROOT, lines);
  const r = await runCapture(["sweep", "--repo", ws.root, "--json"]);
  assert.equal(r.code, 0, r.out + r.err);
  return JSON.parse(r.out) as { refused: number; failed: number; problems: string[] };
}

function assertRefused(report: { refused: number; problems: string[] }): void {
  assert.equal(report.refused, 1, JSON.stringify(report));
  assert.match(report.problems.join("\n"), /could not be verified.*nothing was signalled/);
}

const tags: [string, (own: string) => unknown][] = [
  ["no tag (pid, start time and boot id only)", () => undefined],
  ["a random well-formed tag", () => newGroupTag()],
  ["the forger's own group's tag", (own) => own],
  ["a short tag", () => "abcd"],
  ["an empty tag", () => ""],
  ["a tag that is a prefix of an environment entry", () => "0"],
];

for (const [what, tagOf] of tags) {
  Deno.test(`toolhost sweep leaves a foreign process alone: forged record with ${what}`, async () => {
    const victim = await foreignVictim();
    const forger = await spawnVictim(); // the forging tool: a group with a tag of its own
    try {
      const line = admitLine({
        pid: victim.pid,
        pgid: victim.pid,
        startTime: victim.startTime,
        bootId: BOOT,
        tag: tagOf(forger.tag),
      });
      const report = await cliSweep([line]);
      assert.ok(running(victim.pid), "the sweep killed a process named by a forged journal");
      assertRefused(report);
    } finally {
      end(victim.child);
      await forger.terminate({ graceMs: 0 });
    }
  });
}

Deno.test("toolhost sweep leaves another toolhost group alone without its own tag", async () => {
  // The victim is a live group of a running toolhost: it carries a tag, but not this one.
  const victim = await spawnVictim();
  const forger = await spawnVictim();
  try {
    for (const tag of [forger.tag, newGroupTag(), victim.tag.toUpperCase()]) {
      const line = admitLine({ ...victim.record, tag });
      const report = await cliSweep([line]);
      assert.ok(running(victim.record.pid), "the sweep killed another toolhost's group");
      assertRefused(report);
    }
  } finally {
    await victim.terminate({ graceMs: 0 });
    await forger.terminate({ graceMs: 0 });
  }
});

Deno.test("a leaderless foreign group is left alone even with the leader's exact identity", async () => {
  // The leader waits on stdin; once its identity is copied it exits, leaving its child.
  const child = spawn("/bin/sh", ["-c", "sleep 1000 & echo $!; read x"], {
    detached: true,
    stdio: ["pipe", "pipe", "ignore"],
  });
  const leader = child.pid!;
  let out = "";
  child.stdout!.on("data", (d: Uint8Array) => (out += new TextDecoder().decode(d)));
  try {
    await waitFor(() => out.includes("\n"), 60_000, "the member to start");
    const member = Number(out.trim());
    const startTime = readProcStat(leader)!.startTime;
    child.stdin!.end("\n");
    await waitFor(() => !running(leader), 60_000, "the leader to exit");
    const line = admitLine({
      pid: leader,
      pgid: leader,
      startTime,
      bootId: BOOT,
      tag: newGroupTag(),
    });
    const report = await cliSweep([line]);
    assert.ok(running(member), "the sweep killed a member of a forged leaderless group");
    assertRefused(report);
  } finally {
    end(child);
  }
});

Deno.test("a tagged record naming toolhost itself or pid 1 is never terminated", async () => {
  const me = readProcStat(process.pid)!;
  const init = readProcStat(1);
  const cases = [
    { pid: process.pid, pgid: process.pid, startTime: me.startTime, bootId: BOOT },
    { pid: me.pgrp, pgid: me.pgrp, startTime: readProcStat(me.pgrp)?.startTime, bootId: BOOT },
    { pid: 1, pgid: 1, startTime: init?.startTime ?? 0, bootId: BOOT },
  ];
  for (const fields of cases) {
    await withState(async (state) => {
      const spy = spyTerminator();
      forgeFolder(state, "sessions", ROOT, [admitLine({ ...fields, tag: newGroupTag() })]);
      const report = await sweepSessions(state, { graceMs: 100, terminate: spy.terminate });
      assert.deepEqual(spy.asked, [], `asked to terminate ${fields.pid}`);
      assert.equal(report.refused, 1);
      assert.equal(report.failed, 0);
    });
  }
});

Deno.test("a crashed toolhost's group, tag and all, is still ended by a sweep", async () => {
  const victim = await spawnVictim();
  try {
    await withState(async (state) => {
      forgeFolder(state, "sessions", ROOT, [admitLine({ ...victim.record })]);
      const report = await sweepSessions(state, { graceMs: 100 });
      assert.equal(report.refused, 0, report.problems.join("\n"));
      assert.equal(report.swept, 1);
      assert.equal(running(victim.record.pid), false);
    });
  } finally {
    await victim.terminate({ graceMs: 0 });
  }
});
