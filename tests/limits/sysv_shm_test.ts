/**
 * System V shared memory (`shmget`) counts toward `max_memory_mb` in `rlimit` mode too: a
 * segment filled and detached is in no resident set and behind no descriptor, so before
 * sysv_shm.ts a tool under `max_memory_mb = 50` held 200 MiB that way and ran on. Now it
 * is stopped with `resource limit: memory` — also when a child made the segments and
 * ended before the table was read (its pid is remembered as the tool's). A tool using
 * little shared memory runs to its end.
 *
 * The tools are Perl (`shmget`/`shmwrite` are built-ins; 0 is `IPC_PRIVATE`, 01600
 * `IPC_CREAT | 0600`). They write the segments' ids to a file: the test removes them
 * (an unconfined tool's segment outlives it, as a file it writes would).
 */

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { currentEnforcement, enforcementLabel } from "../../lib/limits/enforcement.ts";
import { parseSysvShm, ShmCharges } from "../../lib/limits/sysv_shm.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { killAll, liveWith } from "../helpers/live_processes.ts";

// MIB in 4 segments, filled 1 MiB at a time and detached; `child`: a child makes them and
// exits. Then `wait`: sleep for ever; `exit`: print "ok".
const HOLD = `#!/usr/bin/perl
my ($who, $mib, $then, $ids) = @ARGV;
sub fill {
  my $chunk = "x" x (1 << 20);
  for my $i (1 .. 4) {
    my $size = ($mib / 4) << 20;
    my $id = shmget(0, $size, 01600);
    die "shmget: $!" unless defined $id;
    open(my $fh, ">>", $ids) or die; print $fh "$id\\n"; close($fh);
    for my $j (0 .. $mib / 4 - 1) { shmwrite($id, $chunk, $j << 20, 1 << 20) or die "shmwrite: $!"; }
  }
}
if ($who eq "child") { my $pid = fork(); if ($pid == 0) { fill(); exit 0; } waitpid($pid, 0); }
else { fill(); }
if ($then eq "exit") { print "ok\\n"; exit 0; }
sleep 300 while 1;
`;

const tool = (name: string, args: string[]) =>
  `\n[artifacts.app.views.agent_tools.${name}]\ndescription = "${name}"\nprotocol = "plain"\n` +
  `command = "tools/hold.pl"\nargs = ${JSON.stringify(args)}\n` +
  `max_memory_mb = 50\ntimeout_ms = 30000\n`;

const enforcement = currentEnforcement();
const ok = enforcement.mode !== "none" && existsSync("/proc/sysvipc/shm");
if (!ok) console.log(`SKIP System V memory tests: ${enforcementLabel(enforcement)}`);

function removeSegments(ids: string): void {
  if (!existsSync(ids)) return;
  for (const id of readFileSync(ids, "utf8").split("\n").filter((l) => /^\d+$/.test(l))) {
    new Deno.Command("ipcrm", { args: ["-m", id], stderr: "null" }).outputSync();
  }
}

for (
  const [who, mib, then, expect] of [
    ["self", "200", "wait", "The tool was stopped: resource limit: memory."],
    ["child", "200", "wait", "The tool was stopped: resource limit: memory."],
    ["self", "8", "exit", "ok\n"],
  ] as const
) {
  Deno.test({
    name: `System V segments ${who === "child" ? "a child made" : "a tool made"} ` +
      `(${mib} MiB) count toward max_memory_mb: ${expect.trim()}`,
    ignore: !ok,
    async fn() {
      await using tmp = await tempWorkspace("", { "app/README.md": "# app\n" });
      const ids = `${tmp.root}/shm.ids`;
      Deno.writeTextFileSync(
        `${tmp.root}/toolhost.toml`,
        `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
          tool("hold", [who, mib, then, ids]),
      );
      Deno.mkdirSync(`${tmp.root}/app/tools`);
      Deno.writeTextFileSync(`${tmp.root}/app/tools/hold.pl`, HOLD, { mode: 0o755 });
      const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
        stateDir: `${tmp.root}/.state`,
        env: { PATH: "/usr/bin:/bin" },
        lock: false,
      });
      try {
        const r = await reg.call("hold_app", {});
        assert.equal((r.content[0] as { text: string }).text, expect);
        assert.deepEqual(liveWith(tmp.root), []);
      } finally {
        await reg.close();
        killAll(tmp.root);
        removeSegments(ids);
      }
    },
  });
}

Deno.test("parseSysvShm / ShmCharges: a segment is the tool's from its creator, and stays so", () => {
  const head = "       key      shmid perms   size  cpid  lpid nattch   uid   rss   swap\n";
  const row = (id: number, cpid: number, rss: number) => `0 ${id} 600 9 ${cpid} 1 0 0 ${rss} 1\n`;
  assert.deepEqual(parseSysvShm(head + row(5, 42, 4096)), [
    { id: "5:42", cpid: 42, lpid: 1, bytes: 4097 },
  ]);
  assert.deepEqual(parseSysvShm("nothing here\n1 2 3\n"), []);
  const path = Deno.makeTempFileSync();
  try {
    const shm = new ShmCharges(path);
    Deno.writeTextFileSync(path, head + row(5, 42, 100) + row(6, 43, 1000));
    assert.equal(shm.charge([42]), 101); // 43's is not the tool's
    assert.equal(shm.charge([]), 101); // 42 is gone from the members: its segment stays
    shm.remember(43); // 43 was a member that ended
    assert.equal(shm.charge([]), 101 + 1001);
    Deno.writeTextFileSync(path, head + row(6, 43, 1000));
    assert.equal(shm.charge([]), 1001); // removed: no longer counted
    // Made by a process never seen, filled (attached last) by a member: the tool's.
    Deno.writeTextFileSync(path, head + row(7, 99, 10));
    assert.equal(shm.charge([1]), 11);
  } finally {
    Deno.removeSync(path);
  }
});
