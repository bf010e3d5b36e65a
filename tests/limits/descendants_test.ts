/**
 * The descendant tracker on real processes: it follows children that left the group
 * (`setpgid`, `setsid`) and an orphan re-parented to init that still carries the group
 * tag; a round stops at its member bound (truncated, so the guard fails closed) and
 * works in time slices that resume where they stopped; killing the tree leaves nothing.
 * Linux only (`/proc`).
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { DescendantTracker } from "../../lib/limits/descendants.ts";
import { killTreeConfirmed } from "../../lib/limits/tree_kill.ts";
import { type ProcStat, readProcStat } from "../../lib/process/proc_identity.ts";
import { type GroupHandle, spawnGroup } from "../../lib/process/spawn_group.ts";

const linux = existsSync("/proc/self/stat");
if (!linux) console.log("SKIP descendants tests: no /proc (not Linux)");

// argv: MODE N — N children; `pgid`: setpgid(0,0); `sid`: setsid; `mixed`: one of each and
// a double-forked grandchild that calls setsid after its parent exited.
const SCRIPT = `
use POSIX ();
my ($mode, $n) = @ARGV;
sub nap { sleep 300 while 1; }
my @modes = $mode eq "mixed" ? ("pgid", "sid", "double") : (($mode) x $n);
for my $m (@modes) {
  next if fork();
  if ($m eq "pgid") { setpgrp(0, 0); nap(); }
  if ($m eq "sid") { POSIX::setsid(); nap(); }
  if (fork()) { POSIX::_exit(0); }
  POSIX::setsid();
  nap();
}
nap();
`;

async function spawn(mode: string, n: number): Promise<GroupHandle> {
  const h = await spawnGroup({
    command: "/usr/bin/perl",
    args: ["-e", SCRIPT, mode, String(n)],
    cwd: "/",
    env: { PATH: "/usr/bin:/bin" },
  });
  h.stdout.resume();
  h.stderr.resume();
  return h;
}

function trackerOf(h: GroupHandle, opts = {}): DescendantTracker {
  return new DescendantTracker(
    { pid: h.record.pid, startTime: h.record.startTime!, tag: h.tag },
    opts,
  );
}

function liveCount(list: { pid: number; startTime: number }[]): number {
  return list.filter((p) => {
    const st = readProcStat(p.pid);
    return st !== null && st.startTime === p.startTime && st.state !== "Z";
  }).length;
}

/** Collect until exactly `want` members run (each round re-walks and re-scans). */
async function collectUntil(t: DescendantTracker, want: number): Promise<number> {
  let n = 0;
  for (const end = Date.now() + 60_000; n !== want && Date.now() < end;) {
    n = liveCount((await t.collect()).known);
    if (n !== want) await new Promise((r) => setTimeout(r, 25));
  }
  return n;
}

async function end(h: GroupHandle, t: DescendantTracker): Promise<void> {
  assert.equal(await killTreeConfirmed(t, h.record), true);
  await h.terminate({ graceMs: 0 });
  assert.equal(liveCount(t.known()), 0);
}

Deno.test({
  name: "the tracker follows setpgid and setsid children and a tagged orphan of a double fork",
  ignore: !linux,
  async fn() {
    const h = await spawn("mixed", 0);
    const t = trackerOf(h);
    try {
      // Leader, setpgid child, setsid child and the orphan, once the middle process exited
      // and the orphan started its own session.
      const isOrphan = (st: ProcStat | null) =>
        st !== null && st.state !== "Z" && st.ppid !== h.record.pid && st.pid !== h.record.pid &&
        st.sid === st.pid;
      for (const end = Date.now() + 60_000; Date.now() < end;) {
        const live = (await t.collect()).known.map((p) => readProcStat(p.pid));
        if (live.some(isOrphan) && liveCount(t.known()) === 4) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal(liveCount(t.known()), 4);
      // A tracker that never saw the middle process finds the orphan by its tag alone.
      const fresh = trackerOf(h);
      assert.equal(liveCount((await fresh.collect()).known), 4);
      const orphan = fresh.known().map((p) => readProcStat(p.pid)).find(isOrphan);
      assert.ok(orphan, "the double-forked grandchild is a member");
    } finally {
      await end(h, t);
    }
  },
});

Deno.test({
  name: "a round past the member bound is truncated",
  ignore: !linux,
  async fn() {
    const h = await spawn("pgid", 6);
    const full = trackerOf(h);
    const bounded = trackerOf(h, { maxTracked: 3 });
    try {
      assert.equal(await collectUntil(full, 7), 7);
      let truncated = false;
      for (let i = 0; i < 10 && !truncated; i++) truncated = bounded.step().truncated;
      assert.equal(truncated, true);
    } finally {
      await end(h, full);
    }
  },
});

Deno.test({
  name: "a step works one time slice and the next resumes the round",
  ignore: !linux,
  async fn() {
    const h = await spawn("sid", 40);
    const full = trackerOf(h);
    const sliced = trackerOf(h, { sliceMs: 0 });
    try {
      assert.equal(await collectUntil(full, 41), 41);
      const first = sliced.step();
      assert.equal(first.complete, false);
      let s = first;
      let steps = 1;
      while (!s.complete) {
        s = sliced.step();
        steps++;
      }
      assert.ok(steps >= 3, `${steps} steps`);
      assert.equal(s.processes, 41);
      assert.equal(s.truncated, false);
    } finally {
      await end(h, full);
    }
  },
});

Deno.test({
  name: "a /proc listing cut by its budget truncates the round and leaves a kill unconfirmed",
  ignore: !linux,
  async fn() {
    const h = await spawn("sid", 2);
    const full = trackerOf(h);
    // scanEvery 1: every round lists /proc, with a budget far below the process count.
    const cut = trackerOf(h, { scanEvery: 1, scan: { maxEntries: 1 } });
    const late = trackerOf(h, { scanEvery: 1, scan: { maxMs: 0 } });
    try {
      assert.equal(await collectUntil(full, 3), 3);
      const s = cut.step();
      assert.equal(s.truncated, true, "a cut listing was taken for a whole one");
      assert.equal(late.step().truncated, true, "a listing out of time was taken for a whole one");
      assert.equal((await cut.collect()).complete, false);
      assert.equal((await full.collect()).complete, true);
      // Killing by a tracker that cannot see everything is never confirmed…
      assert.equal(await killTreeConfirmed(cut, h.record, 200), false);
    } finally {
      // …while one that can is.
      await end(h, full);
    }
  },
});
