/**
 * cgroup v2 enforcement, exercised against a fake hierarchy (an ordinary folder holding
 * the files the kernel would): probing, the per-call group and its limit files, the join
 * wrapper, breach detection from `memory.events` / `pids.events` / `cpu.stat`, and
 * removal. On a host where toolhost may really create cgroup v2 groups, the real-kernel
 * test at the end runs too.
 */

import assert from "node:assert/strict";
import { CallCgroup, cgroupPathOf, ownCgroupDir, probeCgroup } from "../../lib/limits/cgroup.ts";
import { configureLimits, currentEnforcement } from "../../lib/limits/enforcement.ts";
import { openGuard } from "../../lib/limits/guard.ts";
import { runBounded } from "../../lib/process/run.ts";

const MOUNTINFO = "41 31 0:38 / /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw\n";

Deno.test("ownCgroupDir: the 0:: line under the cgroup2 mount; none without one", () => {
  assert.equal(
    ownCgroupDir("0::/user.slice/x.scope\n", MOUNTINFO),
    "/sys/fs/cgroup/user.slice/x.scope",
  );
  assert.deepEqual(ownCgroupDir("4:memory:/a\n", MOUNTINFO), {
    reason: "no cgroup v2 hierarchy is mounted",
  });
  assert.deepEqual(
    ownCgroupDir("0::/\n", "22 1 0:20 / /sys/fs/cgroup/memory rw - cgroup cgroup rw\n"),
    {
      reason: "no cgroup v2 hierarchy is mounted",
    },
  );
});

Deno.test("cgroupPathOf: the group's own path under the cgroup2 mount, nothing elsewhere", () => {
  assert.equal(cgroupPathOf("/sys/fs/cgroup/a/toolhost-1-ab", MOUNTINFO), "/a/toolhost-1-ab");
  const slash = "41 31 0:38 / /sys/fs/cgroup/ rw - cgroup2 cgroup2 rw\n";
  assert.equal(cgroupPathOf("/sys/fs/cgroup/t", slash), "/t");
  assert.equal(cgroupPathOf("/sys/fs/cgroupx/t", MOUNTINFO), undefined);
  assert.equal(cgroupPathOf("/tmp/toolhost_cg_1/toolhost-1-ab", MOUNTINFO), undefined);
  assert.equal(
    cgroupPathOf("/sys/fs/cgroup/t", "22 1 0:20 / /sys/fs/cgroup rw - cgroup x\n"),
    undefined,
  );
});

async function fakeHierarchy(controllers: string, enabled: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "toolhost_cg_" });
  await Deno.writeTextFile(`${dir}/cgroup.controllers`, controllers);
  await Deno.writeTextFile(`${dir}/cgroup.subtree_control`, enabled);
  return dir;
}

Deno.test("probeCgroup: needs the memory and pids controllers; enables them when allowed", async () => {
  const none = await fakeHierarchy("hugetlb\n", "");
  const avail = await fakeHierarchy("cpu memory pids\n", "");
  try {
    const p = probeCgroup({ parent: none });
    assert.equal(p.ok, false);
    assert.match(!p.ok ? p.reason : "", /no memory and pids controllers/);
    assert.deepEqual(probeCgroup({ parent: avail }), { ok: true, parent: avail });
    assert.equal(await Deno.readTextFile(`${avail}/cgroup.subtree_control`), "+memory +pids");
    assert.equal(probeCgroup({ parent: `${avail}/missing` }).ok, false);
  } finally {
    await Deno.remove(none, { recursive: true });
    await Deno.remove(avail, { recursive: true });
  }
});

Deno.test("a call group gets its limit files, joins before exec, and is removed", async () => {
  const parent = await fakeHierarchy("memory pids\n", "memory pids\n");
  try {
    const g = await CallCgroup.create(parent, { maxMemoryMb: 64, maxProcesses: 7 });
    assert.equal(await Deno.readTextFile(`${g.dir}/memory.max`), String(64 * 1024 * 1024));
    assert.equal(await Deno.readTextFile(`${g.dir}/memory.swap.max`), "0");
    assert.equal(await Deno.readTextFile(`${g.dir}/memory.oom.group`), "1");
    assert.equal(await Deno.readTextFile(`${g.dir}/pids.max`), "7");
    const { command, args } = g.wrap("/bin/sh", ["-c", "echo $$"]);
    const out = new Deno.Command(command, { args, stdout: "piped" }).outputSync();
    const pid = new TextDecoder().decode(out.stdout).trim();
    assert.equal((await Deno.readTextFile(`${g.dir}/cgroup.procs`)).trim(), pid);
    await Deno.writeTextFile(`${g.dir}/memory.events`, "low 0\noom 1\noom_kill 2\n");
    await Deno.writeTextFile(`${g.dir}/pids.events`, "max 3\n");
    await Deno.writeTextFile(`${g.dir}/cpu.stat`, "usage_usec 1500000\nuser_usec 1\n");
    assert.deepEqual(g.events(), { oomKills: 2, pidsMax: 3, cpuUsec: 1500000 });
    await g.remove();
    assert.equal(await Deno.stat(g.dir).then(() => true, () => false), false);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

// The tool finds its own (fake) group by its pid in cgroup.procs and writes the event.
const REPORT = (file: string, line: string) => `
for d in "$FAKE_CG"/toolhost-*/; do
  if [ "$(cat "$d/cgroup.procs" 2>/dev/null)" = "$$" ]; then printf '${line}\\n' > "$d/${file}"; fi
done
sleep 30
`;

for (
  const [kind, file, line, limits] of [
    ["memory", "memory.events", "oom_kill 1", { maxMemoryMb: 64 }],
    ["processes", "pids.events", "max 1", { maxProcesses: 4 }],
    ["cpu", "cpu.stat", "usage_usec 2000001", { maxCpuSeconds: 2 }],
  ] as const
) {
  Deno.test(`cgroup guard: ${file} → resource limit: ${kind}; the group is removed`, async () => {
    const parent = await fakeHierarchy("memory pids\n", "memory pids\n");
    configureLimits({ mode: "cgroup", cgroupParent: parent });
    try {
      assert.equal(currentEnforcement().mode, "cgroup");
      const g = await openGuard(limits);
      assert.ok(g.ok);
      const r = await runBounded({
        command: "/bin/sh",
        args: ["-c", REPORT(file, line)],
        cwd: "/",
        env: { PATH: "/usr/bin:/bin", FAKE_CG: parent },
        guard: g.guard,
        timeoutMs: 20_000,
      });
      assert.equal(r.limitExceeded, kind);
      assert.equal(r.cleanupConfirmed, true);
      const left = [...Deno.readDirSync(parent)].filter((e) => e.name.startsWith("toolhost-"));
      assert.deepEqual(left.filter((e) => !e.name.startsWith("toolhost-probe-")), []);
    } finally {
      configureLimits({});
      await Deno.remove(parent, { recursive: true });
    }
  });
}

// A fake group holds no process at all: to the guard every descendant has moved out of
// it, so they are counted by the tree, as a tool that moved itself elsewhere would be.
Deno.test("cgroup guard: descendants outside the group count; a rewritten limit file is a breach", async () => {
  const parent = await fakeHierarchy("memory pids\n", "memory pids\n");
  configureLimits({ mode: "cgroup", cgroupParent: parent });
  const hold = "my $x = ''; vec($x, (96 << 20) - 1, 8) = 1; sleep 300 while 1";
  const cases = [
    [{ maxMemoryMb: 64 }, "/usr/bin/perl", ["-e", hold], "memory"],
    [
      { maxProcesses: 3 },
      "/bin/sh",
      ["-c", "for i in 1 2 3 4 5; do setsid sleep 30 & done; wait"],
      "processes",
    ],
    [{ maxMemoryMb: 512 }, "/bin/sh", ["-c", REPORT("memory.max", "max")], "memory"],
    [{ maxProcesses: 8 }, "/bin/sh", ["-c", REPORT("pids.max", "max")], "processes"],
  ] as const;
  try {
    for (const [limits, command, args, kind] of cases) {
      const g = await openGuard(limits);
      assert.ok(g.ok);
      const r = await runBounded({
        command,
        args: [...args],
        cwd: "/",
        env: { PATH: "/usr/bin:/bin", FAKE_CG: parent },
        guard: g.guard,
        timeoutMs: 60_000,
      });
      assert.equal(r.limitExceeded, kind, `${command} ${args.join(" ")}`);
      assert.equal(r.cleanupConfirmed, true);
    }
  } finally {
    configureLimits({});
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("forcing cgroup where none can be created: `none`, and tools are refused", async () => {
  const parent = await fakeHierarchy("hugetlb\n", "");
  configureLimits({ mode: "cgroup", cgroupParent: parent });
  try {
    const e = currentEnforcement();
    assert.equal(e.mode, "none");
    const g = await openGuard({ maxProcesses: 2 });
    assert.equal(g.ok, false);
  } finally {
    configureLimits({});
    await Deno.remove(parent, { recursive: true });
  }
});

const real = probeCgroup();
Deno.test({
  name: "real cgroup v2 (where delegated): a pids.max breach is caught by the kernel",
  ignore: !real.ok,
  async fn() {
    configureLimits({ mode: "cgroup" });
    try {
      const g = await openGuard({ maxProcesses: 4 });
      assert.ok(g.ok);
      const r = await runBounded({
        command: "/bin/sh",
        args: ["-c", "for i in 1 2 3 4 5 6 7 8; do sleep 5 & done; wait"],
        cwd: "/",
        env: { PATH: "/usr/bin:/bin" },
        guard: g.guard,
      });
      assert.equal(r.limitExceeded, "processes");
    } finally {
      configureLimits({});
    }
  },
});
