/**
 * A confined tool's System V segments count toward `max_memory_mb` in `rlimit` mode: they
 * live in its sandbox's own IPC namespace, which the host's `/proc/sysvipc/shm` does not
 * show, so before lib/limits/namespace_shm.ts a confined tool under `max_memory_mb = 50`
 * that filled 200 MiB of segments and detached them ran on until its timeout. Now it is
 * stopped with `resource limit: memory`, also when a child made them and ended; a tool
 * using a little shared memory runs to its end. (Cgroup mode charges the pages to the
 * call's group: the same outcome.) The segments end with the sandbox: nothing to clean.
 *
 * The tool is tests/limits/sysv_shm_test.ts's Perl fixture (`shmget` + `shmwrite`). The
 * table is read from inside the namespace (`nsenter`): as root, and as an unprivileged
 * user, who can join it only through the sandbox's user namespace it owns — also when the
 * tool made an IPC namespace of its own inside the sandbox (`unshare -r --ipc`).
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { currentEnforcement } from "../../lib/limits/enforcement.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { killAll, liveWith } from "../helpers/live_processes.ts";
import { printSkip, skipReason } from "./_corpus.ts";
import { chownTo, stageUnprivileged, unprivilegedSkipReason } from "./_unprivileged.ts";

// MIB in 4 segments, filled 1 MiB at a time and detached; `child`: a child makes them and
// exits; `nested`: in an IPC namespace of its own (and the user namespace that takes
// unprivileged) nested in the sandbox's. Then `wait`: sleep for ever; `exit`: print "ok".
const HOLD = `#!/usr/bin/perl
my ($who, $mib, $then) = @ARGV;
exec("/usr/bin/unshare", "-r", "--ipc", "/usr/bin/perl", $0, "self", $mib, $then) if $who eq "nested";
sub fill {
  my $chunk = "x" x (1 << 20);
  for my $i (1 .. 4) {
    my $id = shmget(0, ($mib / 4) << 20, 01600);
    die "shmget: $!" unless defined $id;
    for my $j (0 .. $mib / 4 - 1) { shmwrite($id, $chunk, $j << 20, 1 << 20) or die "shmwrite: $!"; }
  }
}
if ($who eq "child") { my $pid = fork(); if ($pid == 0) { fill(); exit 0; } waitpid($pid, 0); }
else { fill(); }
if ($then eq "exit") { print "ok\\n"; exit 0; }
sleep 300 while 1;
`;

const toml = (args: string[]) =>
  `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n\n` +
  `[artifacts.app.views.agent_tools.hold]\ndescription = "hold"\nprotocol = "plain"\n` +
  `command = "tools/hold.pl"\nargs = ${JSON.stringify(args)}\nsandbox = "none"\n` +
  `max_memory_mb = 50\ntimeout_ms = 30000\n`;

const skip = skipReason() ??
  (currentEnforcement().mode === "none" ? "resource limits are not enforceable here" : undefined) ??
  (existsSync("/usr/bin/perl") ? undefined : "no /usr/bin/perl");

for (
  const [who, mib, then, expect] of [
    ["self", "200", "wait", "The tool was stopped: resource limit: memory."],
    ["child", "200", "wait", "The tool was stopped: resource limit: memory."],
    ["self", "8", "exit", "ok\n"],
  ] as const
) {
  Deno.test(
    `confined: System V segments ${who === "child" ? "a child made" : "a tool made"} ` +
      `(${mib} MiB) in its own IPC namespace count toward max_memory_mb: ${expect.trim()}`,
    async () => {
      if (skip) return printSkip("confined System V memory", skip);
      await using ws = await tempWorkspace(toml([who, mib, then]), {
        "app/tools/hold.pl": { text: HOLD, mode: 0o755 },
      });
      const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
        stateDir: `${ws.root}/.toolhost/state`,
        env: { PATH: "/usr/bin:/bin" },
        lock: false,
      });
      try {
        const r = await reg.call("hold_app", {});
        assert.equal((r.content[0] as { text: string }).text, expect);
        assert.deepEqual(liveWith(ws.root), []);
      } finally {
        await reg.close();
        killAll(ws.root);
      }
    },
  );
}

const unprivSkip = skip ?? await unprivilegedSkipReason();

Deno.test("unprivileged: a confined tool's System V segments count toward max_memory_mb", async () => {
  if (unprivSkip) return printSkip("unprivileged System V memory", unprivSkip);
  await using stage = await stageUnprivileged();
  for (
    const [who, mib, then, expect] of [
      ["self", "200", "wait", "The tool was stopped: resource limit: memory."],
      ["self", "8", "exit", "ok\n"],
      ["nested", "200", "wait", "The tool was stopped: resource limit: memory."],
    ] as const
  ) {
    await using ws = await tempWorkspace(toml([who, mib, then]), {
      "app/tools/hold.pl": { text: HOLD, mode: 0o755 },
    });
    await chownTo(stage.user, ws.root);
    const r = await stage.cli([
      "tools",
      "call",
      "hold_app",
      "--eval",
      "app/review",
      "--repo",
      ws.root,
      "--args",
      "{}",
    ]);
    assert.notEqual(r.out, "", `no result (exit ${r.code}): ${r.err}`);
    const res = JSON.parse(r.out) as { content: { text?: string }[] };
    const text = res.content.map((b) => b.text ?? "").join("");
    if (who === "nested" && text.startsWith("The tool exited with status")) {
      printSkip("nested IPC namespace", "no user namespace can be nested in a sandbox here");
      continue;
    }
    assert.equal(text, expect);
    assert.deepEqual(liveWith(ws.root), []);
  }
});
