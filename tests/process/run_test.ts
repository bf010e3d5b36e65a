import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProcessRecord } from "../../lib/process/proc_identity.ts";
import { readProcStat } from "../../lib/process/proc_identity.ts";
import { checkTimeoutMs, runBounded, type RunBoundedOptions } from "../../lib/process/run.ts";
import { type GroupHandle, spawnGroup } from "../../lib/process/spawn_group.ts";
import { assertGroupGone, assertPidsDead, ENV, text, tool } from "./helpers.ts";

const MiB = 1024 * 1024;
const misbehave = tool("misbehave.sh");

function run(args: string[], extra: Partial<RunBoundedOptions> = {}) {
  return runBounded({ command: misbehave, args, cwd: "/", env: ENV, ...extra });
}

Deno.test("runBounded passes stdin and collects stdout; stderr is only counted", async () => {
  const r = await run(["secret_stderr", "0"], { stdin: "ignored input" });
  assert.equal(r.exitCode, 0);
  assert.equal(r.signal, null);
  assert.equal(text(r.stdout), '{"content":[{"type":"text","text":"public"}]}');
  assert.equal(r.stderrBytes, "SECRET-STDERR-7f3a9c\n".length);
  assert.equal(JSON.stringify(r).includes("SECRET"), false);
  assert.equal(r.cleanupConfirmed, true);
  const echo = await run(["echo_request"], { stdin: new TextEncoder().encode('{"a":1}') });
  assert.equal(text(echo.stdout), '{"content":[{"type":"json","data":{"a":1}}]}');
  assertGroupGone(r.record!);
});

Deno.test("runBounded survives a tool that never reads a large stdin", async () => {
  const r = await run(["ignore_stdin"], { stdin: "x".repeat(4 * MiB) });
  assert.equal(r.exitCode, 0);
  assert.match(text(r.stdout), /did not read/);
});

Deno.test("timeoutMs must be an integer from 1 to 2147483647", async () => {
  assert.equal(checkTimeoutMs(undefined), 120000);
  assert.equal(checkTimeoutMs(1), 1);
  assert.equal(checkTimeoutMs(2147483647), 2147483647);
  for (const bad of [0, -1, 2147483648, 1.5, Number.NaN]) {
    assert.throws(() => checkTimeoutMs(bad), /timeout_ms/);
  }
  await assert.rejects(run(["ok"], { timeoutMs: 0 }), /timeout_ms/);
  const r = await run(["ignore_stdin"], { timeoutMs: 2147483647 });
  assert.equal(r.exitCode, 0);
});

Deno.test("a tool sleeping past its deadline is ended as a timeout", async () => {
  const r = await run(["sleep"], { timeoutMs: 200 });
  assert.equal(r.timedOut, true);
  assert.equal(r.cancelled, false);
  assert.equal(r.signal, "SIGTERM");
  assert.equal(r.timeoutMs, 200);
  assertGroupGone(r.record!);
});

Deno.test("a deadline on a tool ignoring SIGTERM escalates to SIGKILL", async () => {
  // The deadline must find the TERM trap set; on a loaded machine a short one may come
  // first (then SIGTERM ends it): try a longer one rather than race.
  let r = await run(["sleep_ignoring_term"], { timeoutMs: 150, graceMs: 100 });
  for (const timeoutMs of [2000, 10_000]) {
    if (r.signal !== "SIGTERM") break;
    r = await run(["sleep_ignoring_term"], { timeoutMs, graceMs: 100 });
  }
  assert.equal(r.timedOut, true);
  assert.equal(r.signal, "SIGKILL");
  assertGroupGone(r.record!);
});

Deno.test("cancellation ends the group, before or during the call", async () => {
  const pre = new AbortController();
  pre.abort();
  const r0 = await run(["sleep"], { signal: pre.signal });
  assert.equal(r0.cancelled, true);
  assert.equal(r0.record, undefined, "nothing was spawned");
  const ac = new AbortController();
  const spawned: ProcessRecord[] = [];
  // Abort once the process exists (a timer could fire before a busy machine spawned it).
  const onSpawn = (rec: ProcessRecord) => {
    spawned.push(rec);
    ac.abort();
  };
  const r = await run(["sleep"], { signal: ac.signal, onSpawn });
  assert.equal(r.cancelled, true);
  assert.equal(r.timedOut, false);
  assert.equal(spawned.length, 1);
  assertGroupGone(spawned[0]);
});

Deno.test("spawn failures are generic", async () => {
  const missing = await runBounded({ command: "/nonexistent/tool", cwd: "/", env: ENV });
  assert.equal(missing.spawnError, "not found");
  const dir = mkdtempSync(join(tmpdir(), "toolhost-noexec-"));
  try {
    writeFileSync(join(dir, "tool"), "#!/bin/sh\necho hi\n", { mode: 0o644 });
    const denied = await runBounded({ command: join(dir, "tool"), cwd: "/", env: ENV });
    // root may still be refused exec without any x bit.
    assert.equal(denied.spawnError, "permission denied");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("stdout cap: at the cap is fine, one byte over is an overflow", async () => {
  for (const [n, over] of [[999, false], [1000, false], [1001, true]] as const) {
    const r = await run(["exact", String(n)], { maxStdoutBytes: 1000 });
    assert.equal(r.stdoutOverflow, over, `n=${n}`);
    assert.equal(r.stdout.length, Math.min(n, 1000));
  }
});

Deno.test("default stdout cap is 16 MiB", async () => {
  const at = await run(["exact", String(16 * MiB)]);
  assert.equal(at.stdoutOverflow, false);
  assert.equal(at.stdout.length, 16 * MiB);
  assert.equal(at.exitCode, 0);
  const over = await run(["exact", String(16 * MiB + 1)]);
  assert.equal(over.stdoutOverflow, true);
  assert.equal(over.stdout.length, 16 * MiB);
  assertGroupGone(over.record!);
});

Deno.test("never-ending output hits the cap and the group is killed early", async () => {
  const r = await run(["forever"], { timeoutMs: 60000 });
  assert.equal(r.stdoutOverflow, true);
  assert.equal(r.timedOut, false);
  assert.equal(r.stdout.length, 16 * MiB);
  assert.ok(r.stdoutBytes > 16 * MiB);
  assert.notEqual(r.signal, null);
  assertGroupGone(r.record!);
});

Deno.test("stderr cap: at, below and over; never-ending stderr is killed", async () => {
  for (const [n, over] of [[999, false], [1000, false], [1001, true]] as const) {
    const r = await run(["exact_stderr", String(n)], { maxStderrBytes: 1000 });
    assert.equal(r.stderrOverflow, over, `n=${n}`);
  }
  const r = await run(["stderr_forever"], { timeoutMs: 60000 });
  assert.equal(r.stderrOverflow, true);
  assert.equal(r.stdout.length, 0);
  assertGroupGone(r.record!);
});

Deno.test("retainStdoutBytes keeps only the first bytes but counts them all", async () => {
  const r = await run(["exact", "5000"], { retainStdoutBytes: 100 });
  assert.equal(r.stdout.length, 100);
  assert.equal(r.stdoutBytes, 5000);
  assert.equal(r.stdoutOverflow, false);
});

Deno.test("a tool killed by a signal reports the signal", async () => {
  const r = await run(["kill_self"]);
  assert.equal(r.exitCode, null);
  assert.equal(r.signal, "SIGKILL");
});

Deno.test("descendants that ignore SIGTERM do not outlive a successful call", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-pids-"));
  try {
    const pidFile = join(dir, "pids");
    const r = await run(["detach", pidFile], { graceMs: 100 });
    assert.equal(r.exitCode, 0);
    assert.equal(r.cleanupConfirmed, true);
    assert.match(text(r.stdout), /left children behind/);
    const pids = readFileSync(pidFile, "utf8").trim().split("\n").map(Number);
    assert.equal(pids.length, 3);
    assertPidsDead(pids);
    assertGroupGone(r.record!);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("descendants that left the group with setsid do not outlive the call", async () => {
  // setsid takes a process out of the group (and session) the call kills; the group's
  // environment tag finds it anyway.
  const dir = mkdtempSync(join(tmpdir(), "toolhost-pids-"));
  try {
    const pidFile = join(dir, "pids");
    const r = await run(["escape", pidFile], { graceMs: 100 });
    assert.equal(r.exitCode, 0);
    assert.equal(r.cleanupConfirmed, true);
    const pids = readFileSync(pidFile, "utf8").trim().split("\n").map(Number);
    assert.equal(pids.length, 2);
    assertPidsDead(pids);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("an escapee is reaped while other groups of this process run; those are left alone", async () => {
  // The reaper knows this process's other group leaders without reading their environment
  // (escape_reaper.ts): that must never hide an escapee, nor touch those groups.
  const dir = mkdtempSync(join(tmpdir(), "toolhost-pids-"));
  const others: GroupHandle[] = [];
  try {
    const pidFile = join(dir, "pids");
    const call = run(["escape", pidFile], { graceMs: 100 }); // its leader is spawned now
    for (let i = 0; i < 3; i++) {
      const h = await spawnGroup({ command: "/bin/sleep", args: ["100"], cwd: "/", env: ENV });
      h.stdout.resume();
      h.stderr.resume();
      others.push(h);
    }
    const r = await call;
    assert.equal(r.cleanupConfirmed, true);
    assert.ok(others.every((h) => h.record.pid > r.record!.pid), "spawned after the call's leader");
    const pids = readFileSync(pidFile, "utf8").trim().split("\n").map(Number);
    assert.equal(pids.length, 2);
    assertPidsDead(pids);
    for (const h of others) assert.equal(h.exitStatus, null, "another group was ended");
  } finally {
    for (const h of others) await h.terminate({ graceMs: 0 });
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("a timed-out leader and its SIGTERM-ignoring children all end", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-pids-"));
  try {
    const pidFile = join(dir, "pids");
    // The deadline must find the child started (its pid written): else try a longer one.
    let r = await run(["detach_timeout", pidFile], { timeoutMs: 300, graceMs: 100 });
    for (const timeoutMs of [2000, 10_000]) {
      if (readFileSync(pidFile, "utf8").trim() !== "") break;
      r = await run(["detach_timeout", pidFile], { timeoutMs, graceMs: 100 });
    }
    assert.equal(r.timedOut, true);
    const pids = readFileSync(pidFile, "utf8").trim().split("\n").map(Number);
    assert.ok(pids.every((p) => p > 1), "the child's pid was written");
    assertPidsDead(pids);
    assertGroupGone(r.record!);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("onSpawn sees the identity before stdin is written; a throwing onSpawn kills", async () => {
  let seen: ProcessRecord | undefined;
  const r = await run(["echo_request"], {
    stdin: "{}",
    onSpawn: async (rec) => {
      await new Promise((res) => setTimeout(res, 20));
      assert.equal(readProcStat(rec.pid)?.startTime, rec.startTime);
      seen = rec;
    },
  });
  assert.deepEqual(seen, r.record);
  assert.equal(r.exitCode, 0);
  let journaled: ProcessRecord | undefined;
  await assert.rejects(
    run(["sleep"], {
      onSpawn: (rec) => {
        journaled = rec;
        throw new Error("journal full");
      },
    }),
    /journal full/,
  );
  assertGroupGone(journaled!);
});

Deno.test("a child that exits while onSpawn is still awaiting keeps its output", async () => {
  // Regression: readers used to be attached only after onSpawn resolved, and
  // child_process discards the unread output of a child that already exited.
  for (let i = 0; i < 20; i++) {
    const r = await runBounded({
      command: "/bin/echo",
      args: ["hi"],
      cwd: "/",
      env: {},
      onSpawn: () => new Promise<void>((resolve) => setTimeout(resolve, 20)),
    });
    assert.equal(new TextDecoder().decode(r.stdout), "hi\n", `round ${i}`);
    assert.equal(r.exitCode, 0);
  }
});
