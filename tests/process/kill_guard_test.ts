/**
 * The structural guards of group signalling: a record that names pid 0 or 1, group 0,
 * this process, or lacks a start time or the current boot id is never "ours", so nothing
 * is ever signalled for it. Only `inspectGroup` is called with such records here: it
 * signals nothing, so these tests are safe even against code that would.
 */

import assert from "node:assert/strict";
import process from "node:process";
import { inspectGroup } from "../../lib/process/kill_group.ts";
import { currentBootId, readProcStat } from "../../lib/process/proc_identity.ts";
import { spawnGroup } from "../../lib/process/spawn_group.ts";
import { ENV } from "./helpers.ts";

const BOOT = currentBootId();

Deno.test("kernel threads' group 0 (kill(-0) hits our own group) is never ours", () => {
  const kthread = readProcStat(2);
  if (kthread === null || kthread.pgrp !== 0) return; // no visible kernel thread here
  const r = inspectGroup({ pid: 2, pgid: 0, startTime: null, bootId: null });
  assert.equal(r.ours, false);
  const exact = inspectGroup({ pid: 2, pgid: 0, startTime: kthread.startTime, bootId: BOOT });
  assert.equal(exact.ours, false);
});

Deno.test("pid 1, pid 0, negative and out-of-range pids are never ours", () => {
  const init = readProcStat(1);
  const records = [
    { pid: 1, pgid: 1, startTime: null, bootId: null },
    { pid: 1, pgid: 1, startTime: init?.startTime ?? 0, bootId: BOOT },
    { pid: 1, pgid: init?.pgrp ?? 0, startTime: init?.startTime ?? 0, bootId: BOOT },
    { pid: 0, pgid: 0, startTime: null, bootId: null },
    { pid: -1, pgid: -1, startTime: 0, bootId: BOOT },
    { pid: 2 ** 40, pgid: 2 ** 40, startTime: 0, bootId: BOOT },
    { pid: 1.5, pgid: 1.5, startTime: 0, bootId: BOOT },
  ];
  for (const r of records) assert.equal(inspectGroup(r).ours, false, JSON.stringify(r));
});

Deno.test("a live group recorded without a start time or boot id is not ours", async () => {
  const h = await spawnGroup({ command: "/bin/sleep", args: ["30"], cwd: "/", env: ENV });
  h.stdout.resume();
  h.stderr.resume();
  try {
    assert.equal(inspectGroup(h.record).ours, true);
    assert.equal(inspectGroup({ ...h.record, startTime: null }).ours, false);
    if (BOOT !== null) assert.equal(inspectGroup({ ...h.record, bootId: null }).ours, false);
    assert.equal(inspectGroup({ ...h.record, pgid: h.record.pid + 1 }).ours, false);
  } finally {
    await h.terminate({ graceMs: 0 });
  }
});

Deno.test("a session leader's own group is never ours, even with its exact identity", async () => {
  // The child leads its own session and group; it inspects a record of itself.
  const script = `
    import process from "node:process";
    import { inspectGroup } from ${
    JSON.stringify(new URL("../../lib/process/kill_group.ts", import.meta.url).href)
  };
    import { recordProcess, readProcStat } from ${
    JSON.stringify(new URL("../../lib/process/proc_identity.ts", import.meta.url).href)
  };
    const me = readProcStat(process.pid);
    const own = recordProcess(process.pid);
    console.log(me.sid === process.pid, inspectGroup(own).ours);
  `;
  const h = await spawnGroup({
    command: Deno.execPath(),
    args: ["eval", "--ext=ts", script],
    cwd: "/",
    env: { ...ENV, NO_COLOR: "1" },
  });
  let out = "";
  h.stdout.on("data", (d: Uint8Array) => (out += new TextDecoder().decode(d)));
  h.stderr.resume();
  await h.exited;
  await h.terminate({ graceMs: 0 });
  assert.equal(out.trim(), "true false");
  assert.equal(
    inspectGroup({ pid: process.pid, pgid: process.pid, startTime: 0, bootId: BOOT })
      .ours,
    false,
  );
});
