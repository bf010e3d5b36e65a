/**
 * A forged session journal (a cloned repository can ship `.toolhost/state`) must never make
 * a sweep signal a process toolhost did not start: every incomplete, malformed or
 * unverifiable entry is left alone. Each victim here is an unrelated process leading its
 * own session (like `setsid sleep`); entries that would make older code signal pid 1,
 * group 0 or this process go through a spy terminator that never signals.
 */

import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { currentBootId, readProcStat } from "../../lib/process/proc_identity.ts";
import { spawnGroup } from "../../lib/process/spawn_group.ts";
import { sweepSessions } from "../../lib/sessions/sweep.ts";
import { runCapture } from "../helpers/cli.ts";
import { BASE_FILES, BASE_TOML, tempWorkspace } from "../helpers/workspace.ts";
import { openRegistry, sessionWorkspace, textOf } from "./_helpers.ts";
import {
  admitLine,
  assertNeverSignalled,
  DEAD_OWNER,
  forgeFolder,
  running,
  spawnVictim,
  spyTerminator,
  withState,
} from "./_forge.ts";

const ROOT = "00000000000000aa";
const BOOT = currentBootId()!;

/** Forge a stale session root whose journal names the victim, sweep, and return the report. */
async function sweepForged(
  state: string,
  fields: (victim: { pid: number; startTime: number }) => Record<string, unknown>,
) {
  const victim = await spawnVictim();
  try {
    const v = { pid: victim.record.pid, startTime: victim.record.startTime! };
    const root = forgeFolder(state, "sessions", ROOT, [admitLine(fields(v))]);
    const report = await sweepSessions(state, { graceMs: 100 });
    await assertNeverSignalled(victim, "the sweep signalled a process named by a forged journal");
    return { report, root };
  } finally {
    await victim.terminate({ graceMs: 0 });
  }
}

const victimCases: [string, (v: { pid: number; startTime: number }) => Record<string, unknown>][] =
  [
    ["startTime null, bootId null (the audit repro)", (v) => ({
      pid: v.pid,
      pgid: v.pid,
      startTime: null,
      bootId: null,
    })],
    ["startTime null, current bootId", (v) => ({
      pid: v.pid,
      pgid: v.pid,
      startTime: null,
      bootId: BOOT,
    })],
    ["startTime missing", (v) => ({ pid: v.pid, pgid: v.pid, bootId: BOOT })],
    ["startTime a string", (v) => ({
      pid: v.pid,
      pgid: v.pid,
      startTime: String(v.startTime),
      bootId: BOOT,
    })],
    ["exact startTime, bootId null", (v) => ({
      pid: v.pid,
      pgid: v.pid,
      startTime: v.startTime,
      bootId: null,
    })],
    ["exact startTime, bootId missing", (v) => ({
      pid: v.pid,
      pgid: v.pid,
      startTime: v.startTime,
    })],
    ["exact startTime, bootId empty", (v) => ({
      pid: v.pid,
      pgid: v.pid,
      startTime: v.startTime,
      bootId: "",
    })],
    ["exact startTime, another boot", (v) => ({
      pid: v.pid,
      pgid: v.pid,
      startTime: v.startTime,
      bootId: "00000000-0000-0000-0000-000000000000",
    })],
    ["startTime one tick early", (v) => ({
      pid: v.pid,
      pgid: v.pid,
      startTime: v.startTime - 1,
      bootId: BOOT,
    })],
    ["startTime one tick late", (v) => ({
      pid: v.pid,
      pgid: v.pid,
      startTime: v.startTime + 1,
      bootId: BOOT,
    })],
    ["pid a string", (v) => ({
      pid: String(v.pid),
      pgid: v.pid,
      startTime: null,
      bootId: null,
    })],
    ["pid fractional", (v) => ({
      pid: v.pid + 0.5,
      pgid: v.pid,
      startTime: null,
      bootId: null,
    })],
  ];

for (const [what, fields] of victimCases) {
  Deno.test(`sweep never signals a forged journal entry: ${what}`, async () => {
    await withState(async (state) => {
      const { report, root } = await sweepForged(state, fields);
      assert.equal(report.failed, 0, report.problems.join("\n"));
      assert.equal(report.swept, 1);
      assert.equal(existsSync(root), false, "the forged root should be removed");
      for (const p of report.problems) assert.equal(p.includes(state), false);
    });
  });
}

Deno.test("a forged entry with an incomplete identity is counted as refused and reported", async () => {
  await withState(async (state) => {
    const { report } = await sweepForged(state, (v) => ({
      pid: v.pid,
      pgid: v.pid,
      startTime: null,
      bootId: null,
    }));
    assert.equal(report.refused, 1);
    assert.equal(report.failed, 0);
    assert.match(report.problems[0], /^session 00000000000000aa: 1 journal entry could not be/);
  });
});

/** Entries that older code would have handed to the terminator (pid 1, group 0, ourselves). */
const spyCases: [string, () => Record<string, unknown>][] = [
  ["pid 1, startTime null", () => ({ pid: 1, pgid: 1, startTime: null, bootId: null })],
  ["pid 1, its own start time and boot", () => ({
    pid: 1,
    pgid: 1,
    startTime: readProcStat(1)?.startTime ?? 0,
    bootId: BOOT,
  })],
  ["pid 2 with group 0 (kill(-0) is our own group)", () => ({
    pid: 2,
    pgid: 0,
    startTime: null,
    bootId: null,
  })],
  ["pid 0", () => ({ pid: 0, pgid: 0, startTime: null, bootId: null })],
  ["negative pid", () => ({ pid: -1, pgid: -1, startTime: null, bootId: null })],
  ["huge pid", () => ({ pid: 2 ** 40, pgid: 2 ** 40, startTime: 1, bootId: null })],
  ["pid beyond pid_max", () => ({ pid: 4_194_305, pgid: 4_194_305, startTime: 1, bootId: BOOT })],
  ["this process, startTime null", () => ({
    pid: process.pid,
    pgid: process.pid,
    startTime: null,
    bootId: null,
  })],
  ["this process, exact identity", () => ({
    pid: process.pid,
    pgid: process.pid,
    startTime: readProcStat(process.pid)!.startTime,
    bootId: BOOT,
  })],
  ["this process's group", () => {
    const me = readProcStat(process.pid)!;
    return { pid: me.pgrp, pgid: me.pgrp, startTime: null, bootId: null };
  }],
];

for (const [what, fields] of spyCases) {
  Deno.test(`sweep never asks to terminate a forged entry: ${what}`, async () => {
    await withState(async (state) => {
      const spy = spyTerminator();
      const root = forgeFolder(state, "sessions", ROOT, [admitLine(fields())]);
      const report = await sweepSessions(state, { graceMs: 100, terminate: spy.terminate });
      assert.deepEqual(spy.asked, [], "a forged entry reached the terminator");
      assert.equal(report.failed, 0, report.problems.join("\n"));
      assert.equal(existsSync(root), false);
    });
  });
}

Deno.test("a forged entry for a group whose leader exited is never signalled", async () => {
  // The leader exits at once; its background child keeps the group (and number) in use.
  const h = await spawnGroup({
    command: "/bin/sh",
    args: ["-c", "sleep 1000 & echo $!"],
    cwd: "/",
    env: { PATH: "/usr/bin:/bin" },
  });
  let out = "";
  h.stdout.on("data", (d: Uint8Array) => (out += new TextDecoder().decode(d)));
  h.stderr.resume();
  await h.exited;
  const member = Number(out.trim());
  try {
    await withState(async (state) => {
      assert.ok(running(member));
      const line = admitLine({ pid: h.record.pid, pgid: h.record.pid, startTime: 0, bootId: BOOT });
      forgeFolder(state, "sessions", ROOT, [line]);
      const report = await sweepSessions(state, { graceMs: 100 });
      await new Promise((r) => setTimeout(r, 50));
      assert.ok(running(member), "a member of a leaderless group was signalled");
      assert.equal(report.refused, 1);
    });
  } finally {
    await h.terminate({ graceMs: 0 });
  }
});

Deno.test("a sweep running as a session leader never signals its own group", async () => {
  // The child leads its own session and group (like `setsid toolhost sweep`), forges a
  // journal naming itself with its exact identity, sweeps, and reports that it survived.
  const script = `
    import { mkdirSync, writeFileSync } from "node:fs";
    import { join } from "node:path";
    import process from "node:process";
    import { currentBootId, readProcStat } from ${
    JSON.stringify(new URL("../../lib/process/proc_identity.ts", import.meta.url).href)
  };
    import { sweepSessions } from ${
    JSON.stringify(new URL("../../lib/sessions/sweep.ts", import.meta.url).href)
  };
    const state = Deno.args[0];
    const me = readProcStat(process.pid);
    const root = join(state, "sessions", "00000000000000bb");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "owner.json"), '{"pid":4194305,"startTime":1,"bootId":null}');
    const line = { op: "admit", role: "start", pid: process.pid, pgid: process.pid,
      startTime: me.startTime, bootId: currentBootId() };
    writeFileSync(join(root, "journal.jsonl"), JSON.stringify(line) + "\\n");
    console.log(me.sid === process.pid ? "leader" : "not-leader");
    await sweepSessions(state, { graceMs: 100 });
    console.log("survived");
  `;
  await withState(async (state) => {
    const h = await spawnGroup({
      command: Deno.execPath(),
      args: ["eval", "--ext=ts", script, state],
      cwd: "/",
      env: { PATH: "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/", NO_COLOR: "1" },
    });
    let out = "";
    h.stdout.on("data", (d: Uint8Array) => (out += new TextDecoder().decode(d)));
    h.stderr.resume();
    const status = await h.exited;
    await h.terminate({ graceMs: 0 });
    assert.equal(out, "leader\nsurvived\n", `status ${JSON.stringify(status)}`);
  });
});

Deno.test("a journal that is a symlink is never followed", async () => {
  const victim = await spawnVictim();
  const outside = mkdtempSync(join(tmpdir(), "toolhost-outside-"));
  try {
    await withState(async (state) => {
      const line = admitLine({
        pid: victim.record.pid,
        pgid: victim.record.pid,
        startTime: victim.record.startTime,
        bootId: victim.record.bootId,
      });
      writeFileSync(join(outside, "journal.jsonl"), `${line}\n`);
      const root = forgeFolder(state, "sessions", ROOT, []);
      rmSync(join(root, "journal.jsonl"));
      symlinkSync(join(outside, "journal.jsonl"), join(root, "journal.jsonl"));
      const report = await sweepSessions(state, { graceMs: 100 });
      await assertNeverSignalled(victim, "the sweep followed a symlinked journal");
      assert.equal(report.refused, 1);
      assert.equal(existsSync(root), false);
      assert.ok(existsSync(join(outside, "journal.jsonl")), "the link's target was removed");
    });
  } finally {
    await victim.terminate({ graceMs: 0 });
    rmSync(outside, { recursive: true, force: true });
  }
});

Deno.test("removal never leaves the sessions folder: symlinked roots, subfolders and sessions", async () => {
  const outside = mkdtempSync(join(tmpdir(), "toolhost-outside-"));
  const keep = join(outside, "0123456789abcdef");
  try {
    mkdirSync(keep);
    writeFileSync(join(keep, "owner.json"), JSON.stringify(DEAD_OWNER));
    writeFileSync(join(keep, "precious"), "keep");
    await withState(async (state) => {
      // A root that is a symlink to a folder elsewhere, and a stale root whose `d` links out.
      const root = forgeFolder(state, "sessions", ROOT, []);
      symlinkSync(keep, join(state, "sessions", "00000000000000cc"));
      symlinkSync(outside, join(root, "d"));
      const report = await sweepSessions(state, { graceMs: 100 });
      assert.equal(report.swept, 1);
      assert.equal(existsSync(root), false);
      assert.equal(readFileSync(join(keep, "precious"), "utf8"), "keep");
    });
    await withState(async (state) => {
      // The sessions folder itself links to a folder whose children look like roots.
      symlinkSync(outside, join(state, "sessions"));
      const report = await sweepSessions(state, { graceMs: 100 });
      assert.equal(readFileSync(join(keep, "precious"), "utf8"), "keep", "followed `sessions`");
      assert.equal(report.failed, 1);
      assert.match(report.problems[0], /sessions folder is not a directory/);
    });
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});

Deno.test("a forged session folder neither kills nor blocks the next session start", async () => {
  await using ws = await sessionWorkspace();
  const state = join(ws.root, ".state");
  const victim = await spawnVictim();
  try {
    const line = admitLine({
      pid: victim.record.pid,
      pgid: victim.record.pid,
      startTime: null,
      bootId: null,
    });
    forgeFolder(state, "sessions", ROOT, [line]);
    const reg = await openRegistry(ws.root, state);
    try {
      assert.equal(textOf(await reg.call("put_app", { value: "x" })), "stored\n");
      assert.ok(running(victim.record.pid), "the pre-session sweep killed the victim");
    } finally {
      await reg.close();
    }
  } finally {
    await victim.terminate({ graceMs: 0 });
  }
});

Deno.test("`toolhost sweep` on a cloned repository's forged state leaves the victim alone", async () => {
  await using ws = await tempWorkspace(BASE_TOML, BASE_FILES);
  const victim = await spawnVictim();
  try {
    const state = join(ws.root, ".toolhost", "state");
    const line = admitLine({
      pid: victim.record.pid,
      pgid: victim.record.pid,
      startTime: null,
      bootId: null,
    });
    forgeFolder(state, "sessions", ROOT, [line], { pid: 999999, startTime: 1, bootId: null });
    const r = await runCapture(["sweep", "--repo", ws.root, "--json"]);
    await assertNeverSignalled(victim, "`toolhost sweep` signalled the victim");
    assert.equal(r.code, 0, r.err);
    assert.equal(JSON.parse(r.out).refused, 1);
  } finally {
    await victim.terminate({ graceMs: 0 });
  }
});
