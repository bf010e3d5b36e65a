/**
 * The dead man's switch (lib/process/dead_man.ts): when the process that armed a group
 * dies by SIGKILL, the group dies too — whether its PID was bound or not (a toolhost
 * killed between the spawn and the bind) — and a disarmed group is left alone. No child
 * inherits the switch's write end (else end-of-file would wait for that child).
 */

import assert from "node:assert/strict";
import { REPO_ROOT } from "../helpers/cli.ts";

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

async function gone(pid: number, maxMs = 60_000): Promise<boolean> {
  const until = Date.now() + maxMs;
  while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

interface Report {
  sleeper: number;
  spared?: number;
  watcher: number;
  watched: string;
  fds: string[];
}

async function armThenDie(mode: string): Promise<Report> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `${REPO_ROOT}/tests/fixtures/process/dead_man_child.ts`, mode],
    stdout: "piped",
    stderr: "inherit",
    stdin: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const report = JSON.parse(text) as Report;
  child.kill("SIGKILL");
  await child.status;
  reader.releaseLock();
  await child.stdout.cancel().catch(() => {});
  return report;
}

Deno.test("dead man's switch: a bound group dies with the process that armed it", async () => {
  const r = await armThenDie("bound");
  assert.ok(r.watched.startsWith("pipe:"), "the watcher reads a pipe");
  assert.ok(!r.fds.includes(r.watched), "a later child must not hold the switch's pipe");
  assert.ok(await gone(r.sleeper), "the group outlived a kill -9 of its owner");
  assert.ok(await gone(r.watcher), "the watcher ends after its work");
});

Deno.test("dead man's switch: a group armed but never bound is found by its tag", async () => {
  const r = await armThenDie("unbound");
  assert.ok(await gone(r.sleeper), "the unbound group outlived a kill -9 of its owner");
});

Deno.test("dead man's switch: a disarmed group is left alone", async () => {
  const r = await armThenDie("disarmed");
  try {
    assert.ok(await gone(r.watcher), "the watcher ends");
    assert.ok(alive(r.sleeper), "a disarmed group must not be killed");
  } finally {
    try {
      Deno.kill(-r.sleeper, "SIGKILL");
    } catch { /* gone */ }
  }
});

Deno.test("dead man's switch: an unconfined group killed before its journal record dies with toolhost", async () => {
  const r = await armThenDie("journaling");
  assert.ok(await gone(r.sleeper), "a group no record names outlived a kill -9 of its owner");
});

Deno.test("dead man's switch: an unconfined group once journaled is left to the sweep", async () => {
  const r = await armThenDie("journaled");
  try {
    await new Promise((res) => setTimeout(res, 500)); // the watcher acts at once, if at all
    assert.ok(alive(r.sleeper), "a journaled unconfined group is the sweep's, as before");
  } finally {
    try {
      Deno.kill(-r.sleeper, "SIGKILL");
    } catch { /* gone */ }
  }
});

Deno.test("dead man's switch: a tagged process that left its group with setsid dies too", async () => {
  const r = await armThenDie("escaped");
  assert.ok(r.sleeper > 1);
  assert.ok(await gone(r.sleeper), "a setsid'd child of an armed group outlived a kill -9");
});

Deno.test("dead man's switch: among hundreds of groups struck off out of order, the listed one dies and a struck one lives", async () => {
  const r = await armThenDie("crowded");
  try {
    assert.ok(await gone(r.sleeper), "a bound group among many outlived a kill -9 of its owner");
    assert.ok(await gone(r.watcher), "the watcher ends after its work");
    assert.ok(r.spared !== undefined && alive(r.spared), "a disarmed group must not be killed");
  } finally {
    try {
      Deno.kill(-r.spared!, "SIGKILL");
    } catch { /* gone */ }
  }
});
