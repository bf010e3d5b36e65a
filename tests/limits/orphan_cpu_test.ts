/**
 * CPU time spent in orphans that live and end between two looks of the watchdog still
 * counts toward `max_cpu_seconds`. Under the CLI, toolhost is a child subreaper: a
 * grandchild whose parent exited at once (a double fork) is re-parented to toolhost and
 * found on the watchdog's full-scan rounds (every tenth tick). One that burns a few
 * milliseconds of CPU and exits before such a round was never seen running, and when
 * toolhost reaped it its CPU time went into toolhost's own children's time, counted
 * nowhere: 600 such orphans spent three times `max_cpu_seconds = 1` and the call
 * succeeded. Now every reaped orphan's time (what reaping it added to toolhost's
 * `cutime + cstime`, which the kernel sums in nanoseconds) is charged to the calls it
 * could be of, so the call is stopped with `resource limit: cpu`.
 *
 * Run through `tools call` (the CLI sets the subreaper up). The tool is Perl (perl-base is
 * Essential on Debian); each grandchild spins a fixed count (a few ms of CPU, under one
 * clock tick, so its own `stat` says 0) and the leader waits for it through a pipe, so
 * the orphans run one after the other. The test waits for the call's result, not a clock.
 */

import assert from "node:assert/strict";
import { currentEnforcement, enforcementLabel } from "../../lib/limits/enforcement.ts";
import { cliCommand } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { goneWith, killAll } from "../helpers/live_processes.ts";

const ORPHANS = `#!/usr/bin/perl
use POSIX ();
for my $i (1 .. 600) {
  pipe(my $r, my $w) or die "pipe: $!";
  my $m = fork();
  if ($m == 0) {
    if (fork() == 0) { close $r; POSIX::setsid(); my $x = 0; $x++ for 1 .. 200000; POSIX::_exit(0); }
    POSIX::_exit(0);
  }
  close $w;
  waitpid($m, 0);
  my $eof = <$r>; # the grandchild ended
  close $r;
}
print "done\\n";
`;

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n
[artifacts.app.views.agent_tools.orphans]
description = "orphans"
protocol = "plain"
command = "tools/orphans.pl"
args = []
max_cpu_seconds = 1
timeout_ms = 120000
`;

const enforcement = currentEnforcement();
const rlimit = enforcement.mode === "rlimit";
if (!rlimit) console.log(`SKIP orphan cpu test: ${enforcementLabel(enforcement)}`);

Deno.test({
  name: "CPU time of short-lived orphans re-parented to toolhost counts toward max_cpu_seconds",
  ignore: !rlimit,
  async fn() {
    await using tmp = await tempWorkspace(TOML, {
      "app/README.md": "# app\n",
      "app/tools/orphans.pl": { text: ORPHANS, mode: 0o755 },
    });
    const marker = `${tmp.root}/app/tools/orphans.pl`;
    try {
      const argv = ["tools", "call", "orphans_app", "--repo", tmp.root, "--eval", "app/review"];
      const out = await cliCommand(argv).output();
      const result = JSON.parse(new TextDecoder().decode(out.stdout));
      assert.equal(result.content[0].text, "The tool was stopped: resource limit: cpu.");
      assert.equal(out.code, 1);
      assert.deepEqual(await goneWith(marker), []);
    } finally {
      killAll(marker);
    }
  },
});
