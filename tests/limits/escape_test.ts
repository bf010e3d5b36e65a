/**
 * Limits that cannot be dodged by leaving the process group: children that call
 * `setpgid(0, 0)` or `setsid`, grandchildren re-parented to init by a double fork, and
 * a fork bomb whose every process starts a new session all count against the tool's
 * limits, in whatever enforcement this host allows; a breach kills every one of them
 * and reports the limit (no values). Afterwards no process carrying the workspace path
 * runs.
 *
 * The tools are Perl (perl-base is Essential on Debian): each memory child fills 48 MiB
 * and holds it, so no single process passes `max_memory_mb = 100` — only their sum does;
 * each CPU child spins, and none reaches its own RLIMIT_CPU before their sum passes
 * `max_cpu_seconds = 2`.
 * The leaders wait for ever; each test waits for the call's result, not for a clock.
 */

import assert from "node:assert/strict";
import { currentEnforcement, enforcementLabel } from "../../lib/limits/enforcement.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { killAll, liveWith } from "../helpers/live_processes.ts";

// Children per mode: `pgid` → setpgid(0,0); `sid` → setsid; `double` → fork, the
// middle process exits, the grandchild (re-parented to init) calls setsid; `bare` → the
// same double fork, but the grandchild calls setpgid and re-executes itself with an empty
// environment (no group tag). MIB > 0: hold that much memory; "spin": burn CPU.
const HOLD = `#!/usr/bin/perl
use POSIX ();
my ($mode, $n, $mib) = @ARGV;
sub hold {
  if ($mib eq "spin") { 1 while 1; }
  my $x = ""; # held for the process's life: freed at the end of a block, it never summed up
  if ($mib > 0) { vec($x, ($mib << 20) - 1, 8) = 1; }
  sleep 300 while 1;
}
if ($mode eq "held") { hold(); }
for (1 .. $n) {
  my $pid = fork();
  next if $pid;
  if ($mode eq "pgid") { setpgrp(0, 0); hold(); }
  if ($mode eq "sid") { POSIX::setsid(); hold(); }
  if (fork()) { POSIX::_exit(0); }
  if ($mode eq "bare") { setpgrp(0, 0); exec("/usr/bin/env", "-i", $0, "held", 0, $mib); }
  POSIX::setsid();
  hold();
}
sleep 300 while 1;
`;
// Depth 9 binary tree (1023 processes); every process starts a new session first.
const BOMB = `#!/usr/bin/perl
use POSIX ();
my $d = 0;
POSIX::setsid();
while ($d < 9) {
  my $l = fork();
  if ($l) { my $r = fork(); if ($r) { sleep 300 while 1; } }
  POSIX::setsid();
  $d++;
}
sleep 300 while 1;
`;
// A child that leaves the session and drops the environment (no group tag), then the
// leader waits until the call's deadline ends it.
const CLEAN = `#!/bin/sh
setsid env -i /usr/bin/perl -e 'sleep 300 while 1' "$0" &
wait
`;

// A session harness: ready, then three setpgid children of 48 MiB each.
const HARNESS = `#!/bin/sh
cat >/dev/null
case "$1" in
  start) echo ready; exec "$(dirname "$0")/hold.pl" pgid 3 48 ;;
  act) sleep 300 ;;
  stop) exit 0 ;;
esac
`;

const tool = (name: string, args: string[], extra: string, script = "hold.pl") =>
  `\n[artifacts.app.views.agent_tools.${name}]\ndescription = "${name}"\nprotocol = "plain"\n` +
  `command = "tools/${script}"\nargs = ${JSON.stringify(args)}\n${extra}\n`;

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
  tool("pgmem", ["pgid", "3", "48"], "max_memory_mb = 100\ntimeout_ms = 60000") +
  tool("sidmem", ["sid", "3", "48"], "max_memory_mb = 100\ntimeout_ms = 60000") +
  tool("dblmem", ["double", "3", "48"], "max_memory_mb = 100\ntimeout_ms = 60000") +
  tool("baremem", ["bare", "3", "48"], "max_memory_mb = 100\ntimeout_ms = 60000") +
  tool("sidcpu", ["sid", "3", "spin"], "max_cpu_seconds = 2\ntimeout_ms = 60000") +
  tool("pgproc", ["pgid", "6", "0"], "max_processes = 4\ntimeout_ms = 60000") +
  tool("sidproc", ["sid", "6", "0"], "max_processes = 4\ntimeout_ms = 60000") +
  tool("dblproc", ["double", "6", "0"], "max_processes = 4\ntimeout_ms = 60000") +
  tool("bomb", [], "max_processes = 16\ntimeout_ms = 60000", "bomb.pl") +
  tool("clean", [], "max_processes = 8\ntimeout_ms = 3000", "clean.sh") +
  `
[artifacts.app.views.agent_sessions.s]
max_memory_mb = 100
start = { command = "tools/harness.sh", args = ["start"] }
stop = { command = "tools/harness.sh", args = ["stop"] }
` + tool("act", ["act"], 'session = "s"\ntimeout_ms = 60000', "harness.sh");

const FILES = {
  "app/README.md": "# app\n",
  "app/tools/hold.pl": { text: HOLD, mode: 0o755 },
  "app/tools/bomb.pl": { text: BOMB, mode: 0o755 },
  "app/tools/clean.sh": { text: CLEAN, mode: 0o755 },
  "app/tools/harness.sh": { text: HARNESS, mode: 0o755 },
};

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

const enforcement = currentEnforcement();
const enforceable = enforcement.mode !== "none";
if (!enforceable) console.log(`SKIP escape tests: ${enforcementLabel(enforcement)}`);

async function withRegistry(
  body: (reg: Registry, marker: string) => Promise<void>,
): Promise<void> {
  const tmp = await tempWorkspace(TOML, FILES);
  const ws = await loadWorkspace(tmp.root);
  const reg = await Registry.open(ws, "app/review", { stateDir: `${tmp.root}/.state` });
  try {
    await body(reg, tmp.root);
  } finally {
    await reg.close();
    killAll(tmp.root);
    await tmp.cleanup();
  }
}

function stoppedFor(kind: string, name: string) {
  Deno.test({
    name: `${name} is stopped with \`resource limit: ${kind}\` and nothing of it survives`,
    ignore: !enforceable,
    async fn() {
      await withRegistry(async (reg, marker) => {
        const r = await reg.call(`${name}_app`, {});
        assert.equal(r.isError, true);
        assert.equal(text(r), `The tool was stopped: resource limit: ${kind}.`);
        assert.deepEqual(liveWith(marker), []);
      });
    },
  });
}

// max_memory_mb = 100: three children of 48 MiB each outside the group.
stoppedFor("memory", "pgmem"); // setpgid(0, 0)
stoppedFor("memory", "sidmem"); // setsid
stoppedFor("memory", "dblmem"); // double fork, re-parented to init, setsid
stoppedFor("memory", "baremem"); // double fork, setpgid, environment cleared (same session)
// max_cpu_seconds = 2: three spinning children in sessions of their own.
stoppedFor("cpu", "sidcpu");
// max_processes = 4: six sleeping children outside the group.
stoppedFor("processes", "pgproc");
stoppedFor("processes", "sidproc");
stoppedFor("processes", "dblproc");
// max_processes = 16: a fork bomb whose every process starts its own session.
stoppedFor("processes", "bomb");

Deno.test({
  name: "a child that leaves the session and drops its environment still ends with the call",
  ignore: !enforceable,
  async fn() {
    await withRegistry(async (reg, marker) => {
      const r = await reg.call("clean_app", {});
      assert.equal(r.isError, true);
      assert.match(text(r), /timed out|deadline/);
      assert.deepEqual(liveWith(marker), []);
    });
  },
});

Deno.test({
  name: "a session harness whose setpgid children pass max_memory_mb ends the session",
  ignore: !enforceable,
  async fn() {
    await withRegistry(async (reg, marker) => {
      const r = await reg.call("act_app", {});
      assert.equal(r.isError, true);
      assert.equal(
        text(r),
        "The tool session `s` ended: resource limit: memory (max_memory_mb = 100).",
      );
      assert.deepEqual(liveWith(marker), []);
    });
  },
});
