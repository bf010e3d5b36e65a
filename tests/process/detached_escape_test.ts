/**
 * Known hole, unfixed (ignored): an UNCONFINED command tool that double-forks, calls
 * `setsid` in the grandchild and re-executes it with an empty environment (`env -i`)
 * leaves a process that outlives its call. It is no longer in the call's process group or
 * session, no longer a descendant (re-parented to init), and no longer carries
 * `_TOOLHOST_GROUP_TAG`, so neither the group kill nor the escape reaper can tell it from
 * any other process of the same user — and by design they never signal what they cannot
 * prove is toolhost's. The seed accepts this for trusted commands ("commands can ... escape
 * cleanup by deliberately detaching descendants"); confinement (`sandbox = "none" | "read"
 * | "write"`: the PID namespace ends with the call) or cgroup enforcement closes it. A fix
 * for `host` tools needs a child subreaper (PR_SET_CHILD_SUBREAPER) holding the call's
 * tree — a process toolhost cannot make itself without native code, and a per-call
 * wrapper process that issue 19's per-call budget does not allow yet.
 */

import assert from "node:assert/strict";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const ESCAPE = `#!/usr/bin/perl
use POSIX ();
if (($ARGV[0] // "") eq "held") {
  open(my $f, ">", "$ENV{PIDFILE}.tmp") or die; print $f "$$\\n"; close $f;
  sleep 1 while 1;
}
my $pid = fork();
if ($pid == 0) {
  if (fork()) { POSIX::_exit(0); }
  POSIX::setsid();
  exec("/usr/bin/env", "-i", "PIDFILE=$ENV{PIDFILE}", "/usr/bin/perl", $0, "held");
}
waitpid($pid, 0);
sleep 1 until -e "$ENV{PIDFILE}.tmp";
print "detached\\n";
`;

Deno.test({
  name:
    "KNOWN HOLE: a host tool's double-forked, setsid'd, env-cleared grandchild outlives its call",
  ignore: true,
  fn: async () => {
    await using ws = await tempWorkspace(
      `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.escape]
description = "Detach a grandchild."
protocol = "plain"
command = "./escape.pl"
args = []
`,
      { "app/escape.pl": { text: ESCAPE, mode: 0o755 } },
    );
    const pidfile = `${ws.root}/held.pid`;
    const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
      stateDir: `${ws.root}/.toolhost/state`,
      env: { PATH: "/usr/bin:/bin", PIDFILE: pidfile },
    });
    let pid = 0;
    try {
      const r = await reg.call("escape_app", {});
      assert.equal(r.isError, false);
      pid = Number(Deno.readTextFileSync(`${pidfile}.tmp`).trim());
    } finally {
      await reg.close();
    }
    const alive = () => {
      try {
        return !/\) [ZX] /.test(Deno.readTextFileSync(`/proc/${pid}/stat`));
      } catch {
        return false;
      }
    };
    const survived = alive();
    if (survived) Deno.kill(pid, "SIGKILL");
    assert.equal(survived, false, "the detached grandchild outlived its call");
  },
});
