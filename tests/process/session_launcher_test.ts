/**
 * Both ways of starting a group (session_launcher.ts): through `setsid` (Deno on Linux)
 * and with a detached spawn. Each must give a session and group leader with the same
 * pid, a timeout that ends the whole group, and generic spawn failures.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import process from "node:process";
import { readProcStat } from "../../lib/process/proc_identity.ts";
import { runBounded } from "../../lib/process/run.ts";
import {
  awaitSessionLeader,
  checkExecutable,
  killLaunching,
  sessionLauncher,
  setSessionLauncher,
} from "../../lib/process/session_launcher.ts";
import { spawnGroup } from "../../lib/process/spawn_group.ts";
import { SpawnError } from "../../lib/process/spawn_error.ts";
import { assertGroupGone, assertPidsDead, ENV, tool } from "./helpers.ts";

const LAUNCHER = sessionLauncher();
const WAYS: [string, string | null][] = [["detached spawn", null]];
if (LAUNCHER !== null) WAYS.push([`launcher ${LAUNCHER}`, LAUNCHER]);
else console.log("SKIP launcher cases: no trusted setsid program (or not Deno on Linux)");

async function withLauncher(path: string | null, body: () => Promise<void>): Promise<void> {
  setSessionLauncher(path);
  try {
    await body();
  } finally {
    setSessionLauncher(undefined);
  }
}

Deno.test("under Deno on Linux with util-linux, groups start through setsid", () => {
  if (LAUNCHER === null) {
    console.log("SKIP: no /usr/bin/setsid or /bin/setsid here");
    return;
  }
  assert.match(LAUNCHER, /^\/(usr\/)?bin\/setsid$/);
});

for (const [label, path] of WAYS) {
  Deno.test(`${label}: the leader leads its own session and group before it gets stdin`, async () => {
    await withLauncher(path, async () => {
      let atSpawn: ReturnType<typeof readProcStat> = null;
      const h = await spawnGroup({
        command: "/bin/cat",
        cwd: "/",
        env: ENV,
        stdin: "hello",
        onSpawn: (r) => void (atSpawn = readProcStat(r.pid)),
      });
      const chunks: Uint8Array[] = [];
      h.stdout.on("data", (c: Uint8Array) => chunks.push(c));
      const ended = new Promise((r) => h.stdout.once("end", r));
      h.stderr.resume();
      assert.ok(atSpawn !== null);
      const st = atSpawn as NonNullable<ReturnType<typeof readProcStat>>;
      assert.equal(st.sid, h.record.pid, "session leader when journaled");
      assert.equal(st.pgrp, h.record.pid, "group leader when journaled");
      assert.equal(h.record.pgid, h.record.pid);
      assert.equal((await h.exited).exitCode, 0);
      await ended;
      assert.equal(new TextDecoder().decode(Buffer.concat(chunks)), "hello");
      assert.equal((await h.terminate()).confirmed, true);
    });
  });

  Deno.test(`${label}: a deadline ends the whole group, children ignoring SIGTERM too`, async () => {
    await withLauncher(path, async () => {
      const dir = mkdtempSync(join(tmpdir(), "toolhost-launch-"));
      try {
        const pids = join(dir, "pids");
        writeFileSync(pids, "");
        // The deadline must find the child started (its pid written): else a longer one.
        const attempt = (timeoutMs: number) =>
          runBounded({
            command: tool("misbehave.sh"),
            args: ["detach_timeout", pids],
            cwd: "/",
            env: ENV,
            timeoutMs,
            graceMs: 100,
          });
        let r = await attempt(300);
        for (const ms of [2000, 10_000]) {
          if (readFileSync(pids, "utf8").trim() !== "") break;
          r = await attempt(ms);
        }
        assert.notEqual(readFileSync(pids, "utf8").trim(), "", "the child's pid was written");
        assert.equal(r.timedOut, true);
        assert.equal(r.cleanupConfirmed, true);
        assertGroupGone(r.record!);
        assertPidsDead(readFileSync(pids, "utf8").split("\n").filter(Boolean).map(Number));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  Deno.test(`${label}: missing and non-executable commands are spawn errors`, async () => {
    await withLauncher(path, async () => {
      const dir = mkdtempSync(join(tmpdir(), "toolhost-launch-"));
      try {
        const missing = await runBounded({ command: join(dir, "none"), cwd: "/", env: ENV });
        assert.equal(missing.spawnError, "not found");
        writeFileSync(join(dir, "tool"), "#!/bin/sh\necho hi\n", { mode: 0o644 });
        const denied = await runBounded({ command: join(dir, "tool"), cwd: "/", env: ENV });
        assert.equal(denied.spawnError, "permission denied");
        const directory = await runBounded({ command: dir, cwd: "/", env: ENV });
        assert.equal(directory.spawnError, "permission denied");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

Deno.test("checkExecutable throws what exec would", () => {
  checkExecutable("/bin/sh");
  assert.throws(() => checkExecutable("/nonexistent/x"), SpawnError);
  assert.throws(() => checkExecutable("/"), /permission denied/);
});

Deno.test("awaitSessionLeader: an ended or missing process is not waited for", async () => {
  assert.equal(await awaitSessionLeader(999_999_999), true);
  // This process is no session leader (the test runner's group leads): bounded wait.
  const me = readProcStat(process.pid)!;
  if (me.sid !== process.pid) assert.equal(await awaitSessionLeader(process.pid, 20), false);
});

Deno.test("killLaunching kills only this process's own child that leads no session", async () => {
  const other = { pid: 1, pgid: 1, startTime: readProcStat(1)?.startTime ?? 0, bootId: null };
  assert.equal(killLaunching(other), false, "not our child");
  const child = spawn("/bin/sleep", ["30"], { stdio: "ignore" });
  const exited = new Promise((r) => child.once("exit", r));
  const st = readProcStat(child.pid!)!;
  const rec = { pid: child.pid!, pgid: child.pid!, startTime: st.startTime, bootId: null };
  assert.equal(killLaunching({ ...rec, startTime: st.startTime + 1 }), false, "another start");
  assert.equal(killLaunching(rec), true);
  await exited;
  const leader = spawn("/bin/sleep", ["30"], { stdio: "ignore", detached: true });
  const ended = new Promise((r) => leader.once("exit", r));
  const ls = readProcStat(leader.pid!)!;
  const lrec = { pid: leader.pid!, pgid: leader.pid!, startTime: ls.startTime, bootId: null };
  assert.equal(killLaunching(lrec), false, "a session leader is signalled as a group");
  process.kill(-leader.pid!, "SIGKILL");
  await ended;
});
