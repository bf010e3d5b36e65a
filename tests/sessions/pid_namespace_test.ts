/**
 * Two toolhosts on one workspace in different pid namespaces (an MCP client on the host and
 * one in a dev container, both on the workspace's default `.toolhost/state`): a pid one of
 * them records names nothing — or another process — in the other's namespace, so the
 * other's sweep took every live folder of the first for a dead owner's and removed it
 * under it (its calls' directories, its session roots with their journals, its artifact
 * store). Owner records now carry the pid namespace, and a folder whose owner lives in
 * another namespace is left alone; one of this namespace whose owner is gone is still
 * removed.
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createCallDirs } from "../../lib/process/call_dirs.ts";
import { readProcStat } from "../../lib/process/proc_identity.ts";
import { currentOwner, ownerElsewhere, parseOwner } from "../../lib/sessions/session_dir.ts";
import { sweepSessions } from "../../lib/sessions/sweep.ts";

const HERE = readlinkSync("/proc/self/ns/pid");
const ELSEWHERE = "pid:[1]";

/** A pid that runs nothing here (the other namespace's toolhost, as seen from this one). */
function unusedPid(): number {
  for (let pid = 4_000_000;; pid--) if (readProcStat(pid) === null) return pid;
}

/** Plant one folder of each kind owned by `owner`; their paths. */
function plant(state: string, owner: Record<string, unknown>, n: string): string[] {
  const line = `${JSON.stringify(owner)}\n`;
  const call = join(state, "calls", n.repeat(24));
  const session = join(state, "sessions", n.repeat(16));
  const store = join(state, "artifacts", n.repeat(24));
  for (const dir of [call, session, store]) {
    mkdirSync(join(dir, "d"), { recursive: true });
    writeFileSync(join(dir, "owner.json"), line);
  }
  writeFileSync(join(call, "journal.jsonl"), "");
  writeFileSync(join(session, "journal.jsonl"), "");
  writeFileSync(join(session, "lease"), "active\n");
  return [call, session, store];
}

Deno.test("a live toolhost of another pid namespace keeps its folders; a dead one of this namespace does not", async () => {
  const state = Deno.makeTempDirSync({ prefix: "toolhost-pidns-" });
  try {
    const { startTime, bootId } = currentOwner();
    const pid = unusedPid();
    const theirs = plant(state, { pid, startTime, bootId, pidNs: ELSEWHERE }, "a");
    const dead = plant(state, { pid, startTime, bootId, pidNs: HERE }, "b");
    const report = await sweepSessions(state);
    assert.equal(report.failed, 0, report.problems.join("\n"));
    for (const dir of theirs) assert.ok(existsSync(dir), "another namespace's folder was removed");
    for (const dir of dead) assert.ok(!existsSync(dir), "a dead owner's folder was left");
  } finally {
    Deno.removeSync(state, { recursive: true });
  }
});

Deno.test("a leaseless session root of another namespace's owner is not taken for abandoned", async () => {
  const state = Deno.makeTempDirSync({ prefix: "toolhost-pidns-" });
  try {
    const { startTime, bootId } = currentOwner();
    const [, session] = plant(
      state,
      { pid: unusedPid(), startTime, bootId, pidNs: ELSEWHERE },
      "c",
    );
    Deno.removeSync(join(session, "lease"));
    await sweepSessions(state);
    assert.ok(existsSync(session));
  } finally {
    Deno.removeSync(state, { recursive: true });
  }
});

Deno.test("owner records carry this process's pid namespace; records without one still parse", async () => {
  assert.equal(currentOwner().pidNs, HERE);
  assert.equal(ownerElsewhere(currentOwner()), false);
  const state = Deno.makeTempDirSync({ prefix: "toolhost-pidns-" });
  try {
    const dirs = await createCallDirs(state);
    const owner = parseOwner(readFileSync(join(dirs.root, "owner.json"), "utf8"));
    assert.equal(owner?.pidNs, HERE);
    await dirs.remove();
  } finally {
    Deno.removeSync(state, { recursive: true });
  }
  const legacy = parseOwner('{"pid":7,"startTime":1,"bootId":null}');
  assert.equal(legacy?.pid, 7);
  assert.equal(ownerElsewhere(legacy!), false);
  assert.equal(parseOwner('{"pid":7,"startTime":1,"bootId":null,"pidNs":5}'), null);
});
