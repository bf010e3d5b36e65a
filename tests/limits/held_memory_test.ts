/**
 * Memory held in files, not in an address space, still counts toward `max_memory_mb`: a
 * tool that fills memfds (`memfd_create`) or an unlinked `/dev/shm` file with `write(2)`
 * and never maps them keeps a resident set of a few MiB while the kernel holds hundreds
 * of MiB for it. Before held_files.ts, rlimit mode's resident-memory sum saw none of it:
 * `max_memory_mb = 50` let a tool hold 400 MiB. Now it is stopped with
 * `resource limit: memory`, confined or not, and nothing of it survives.
 *
 * The tools are Perl (perl-base is Essential on Debian; `syscall(319)` is `memfd_create`
 * on x86_64). They hold the memory and wait for ever: the test waits for the call's result.
 */

import assert from "node:assert/strict";
import { currentEnforcement, enforcementLabel } from "../../lib/limits/enforcement.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { killAll, liveWith } from "../helpers/live_processes.ts";
import { skipReason } from "../sandbox/_corpus.ts";

// Mode `memfd`: 4 memfds; `shm`: 4 files in /dev/shm, unlinked once open. MIB in total,
// written 1 MiB at a time, never mapped; then a child (setsid) holds them, the leader waits.
const HOLD = `#!/usr/bin/perl
use POSIX ();
my ($mode, $mib) = @ARGV;
my @held;
my $chunk = "x" x (1 << 20);
for my $i (1 .. 4) {
  my $fh;
  if ($mode eq "memfd") {
    my $fd = syscall(319, "held$i", 0);
    die "memfd_create: $!" if $fd < 0;
    open($fh, "+<&=", $fd) or die "fdopen: $!";
  } else {
    my $path = "/dev/shm/toolhost_held_$$" . "_$i";
    open($fh, "+>", $path) or die "open: $!";
    unlink($path);
  }
  for (1 .. $mib / 4) { syswrite($fh, $chunk) or die "write: $!"; }
  push @held, $fh;
}
if (fork() == 0) { POSIX::setsid(); sleep 300 while 1; }
@held = ();
sleep 300 while 1;
`;

// Files written to the sandbox's private /tmp and /dev/shm (MIB each), closed; then
// \`wait\`: wait for ever, \`exit\`: print "ok" and end.
const FILL = `#!/bin/sh
for d in /tmp /dev/shm; do /usr/bin/dd if=/dev/zero of=$d/fill bs=1M count=$1 2>/dev/null || exit 3; done
if [ "$2" = exit ]; then echo ok; exit 0; fi
exec /usr/bin/perl -e 'sleep 300 while 1' "$0"
`;

const tool = (name: string, args: string[], extra = "", script = "hold.pl") =>
  `\n[artifacts.app.views.agent_tools.${name}]\ndescription = "${name}"\nprotocol = "plain"\n` +
  `command = "tools/${script}"\nargs = ${JSON.stringify(args)}\n` +
  `max_memory_mb = 50\ntimeout_ms = 60000\n${extra}`;

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
  tool("memfd", ["memfd", "200"]) +
  tool("shm", ["shm", "200"]) +
  tool("confined", ["memfd", "200"], 'sandbox = "read"\n') +
  tool("tmpfs", ["30", "wait"], 'sandbox = "read"\n', "fill.sh") +
  tool("small", ["8", "exit"], 'sandbox = "read"\n', "fill.sh");

const enforcement = currentEnforcement();
const enforceable = enforcement.mode !== "none" && Deno.build.arch === "x86_64";
if (!enforceable) console.log(`SKIP held memory tests: ${enforcementLabel(enforcement)}`);
const noSandbox = skipReason();

function stoppedForMemory(name: string, what: string, ignore = !enforceable, expect = STOPPED) {
  Deno.test({
    name: `${what} counts toward max_memory_mb (${expect.trim()}), nothing survives`,
    ignore,
    async fn() {
      await using tmp = await tempWorkspace(TOML, {
        "app/README.md": "# app\n",
        "app/tools/hold.pl": { text: HOLD, mode: 0o755 },
        "app/tools/fill.sh": { text: FILL, mode: 0o755 },
      });
      const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
        stateDir: `${tmp.root}/.state`,
        env: { PATH: "/usr/bin:/bin" },
      });
      try {
        const r = await reg.call(`${name}_app`, {});
        const text = (r.content[0] as { text: string }).text;
        assert.equal(text, expect);
        assert.deepEqual(liveWith(tmp.root), []);
      } finally {
        await reg.close();
        killAll(tmp.root);
      }
    },
  });
}

const STOPPED = "The tool was stopped: resource limit: memory.";

stoppedForMemory("memfd", "memory written to memfds and never mapped");
stoppedForMemory("shm", "memory written to unlinked /dev/shm files");
stoppedForMemory(
  "confined",
  "a confined tool's memfds",
  !enforceable || noSandbox !== undefined,
);
// 30 MiB in each of /tmp and /dev/shm (each mount capped at 50): 60 MiB in all.
stoppedForMemory(
  "tmpfs",
  "files a confined tool wrote to its private /tmp and /dev/shm",
  !enforceable || noSandbox !== undefined,
);
// 8 MiB in each, under the limit with the tool's own memory: the call runs to its end.
stoppedForMemory(
  "small",
  "(control) a confined tool's small tmpfs files",
  !enforceable || noSandbox !== undefined,
  "ok\n",
);
