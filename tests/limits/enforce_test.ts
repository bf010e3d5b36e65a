/**
 * Resource limits enforced on real processes, with whatever enforcement this host allows
 * (cgroup v2 where toolhost may create groups, else prlimit + the watchdog): a fork bomb
 * stops at max_processes and leaves nothing behind, a memory hog is killed at its limit,
 * a busy loop stops at its CPU limit, a session's harness is held to its limits, and the
 * registry keeps serving afterwards.
 *
 * The fork bomb is a binary tree of depth 10 whose leaves sleep: unbounded in spirit
 * (2047 processes, far past the limit) but finite, so a broken enforcement cannot take a
 * shared CI machine down.
 */

import assert from "node:assert/strict";
import { currentEnforcement } from "../../lib/limits/enforcement.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { liveWith } from "../helpers/live_processes.ts";

const BOMB = `#!/bin/sh
b() { if [ "$1" -lt 10 ]; then b $(($1 + 1)) & b $(($1 + 1)) & wait; else sleep 300; fi; }
b 0
`;
const HOG = `#!/usr/bin/env node
const keep = [];
for (;;) { const b = Buffer.alloc(8 << 20); b.fill(1); keep.push(b); }
`;
const SPIN = `#!/bin/sh
while :; do :; done
`;
// N processes in all: this shell and N-1 sleeping children, for a second.
const FANOUT = `#!/bin/sh
i=1
while [ "$i" -lt "$1" ]; do sleep 1 & i=$((i + 1)); done
wait
echo "ran $1"
`;
const HARNESS = `#!/bin/sh
cat >/dev/null
case "$1" in
  start) echo ready; exec node "$(dirname "$0")/hog.mjs" ;;
  act) sleep 30 ;;
  stop) exit 0 ;;
esac
`;

const tool = (name: string, command: string, args: string[], extra: string) =>
  `\n[artifacts.app.views.agent_tools.${name}]\ndescription = "${name}"\nprotocol = "plain"\n` +
  `command = "${command}"\nargs = ${JSON.stringify(args)}\n${extra}\n`;

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
  tool("bomb", "tools/bomb.sh", [], "max_processes = 8") +
  tool("hog", "tools/hog.mjs", [], "max_memory_mb = 96") +
  tool("spin", "tools/spin.sh", [], "max_cpu_seconds = 1") +
  tool("nap", "sh", ["-c", "sleep 2; echo rested"], "max_cpu_seconds = 1") +
  tool("fan3", "tools/fanout.sh", ["3"], "max_processes = 4") +
  tool("fan4", "tools/fanout.sh", ["4"], "max_processes = 4") +
  tool("fan5", "tools/fanout.sh", ["5"], "max_processes = 4") +
  tool("ok", "echo", ["fine"], "max_processes = 4\nmax_memory_mb = 64\nmax_cpu_seconds = 5") +
  `
[artifacts.app.views.agent_sessions.s]
max_memory_mb = 96
start = { command = "tools/harness.sh", args = ["start"] }
stop = { command = "tools/harness.sh", args = ["stop"] }

[artifacts.app.views.agent_tools.act]
session = "s"
description = "act"
protocol = "plain"
command = "tools/harness.sh"
args = ["act"]
`;

const FILES = {
  "app/README.md": "# app\n",
  "app/tools/bomb.sh": { text: BOMB, mode: 0o755 },
  "app/tools/hog.mjs": { text: HOG, mode: 0o755 },
  "app/tools/spin.sh": { text: SPIN, mode: 0o755 },
  "app/tools/fanout.sh": { text: FANOUT, mode: 0o755 },
  "app/tools/harness.sh": { text: HARNESS, mode: 0o755 },
};

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

async function open() {
  const tmp = await tempWorkspace(TOML, FILES);
  const ws = await loadWorkspace(tmp.root);
  const reg = await Registry.open(ws, "app/review", { stateDir: `${tmp.root}/.state` });
  return { tmp, reg };
}

const enforceable = currentEnforcement().mode !== "none";

Deno.test({
  name: "a fork bomb stops at max_processes and leaves nothing behind; serving goes on",
  ignore: !enforceable,
  async fn() {
    const { tmp, reg } = await open();
    try {
      const r = await reg.call("bomb_app", {});
      assert.equal(r.isError, true);
      assert.equal(text(r), "The tool was stopped: resource limit: processes.");
      assert.deepEqual(liveWith(tmp.root), []);
      assert.deepEqual(await reg.call("ok_app", {}), {
        content: [{ type: "text", text: "fine\n" }],
        isError: false,
      });
    } finally {
      await reg.close();
      await tmp.cleanup();
    }
  },
});

Deno.test({
  name: "max_processes at, below and above: 3 and 4 processes run, 5 are stopped",
  ignore: !enforceable,
  async fn() {
    const { tmp, reg } = await open();
    try {
      const [three, four, five] = await Promise.all(
        ["fan3_app", "fan4_app", "fan5_app"].map((n) => reg.call(n, {})),
      );
      assert.deepEqual(three, { content: [{ type: "text", text: "ran 3\n" }], isError: false });
      assert.deepEqual(four, { content: [{ type: "text", text: "ran 4\n" }], isError: false });
      assert.equal(text(five), "The tool was stopped: resource limit: processes.");
      assert.deepEqual(liveWith(tmp.root), []);
    } finally {
      await reg.close();
      await tmp.cleanup();
    }
  },
});

Deno.test({
  name: "a memory hog is killed at its limit with `resource limit: memory`",
  ignore: !enforceable,
  async fn() {
    const { tmp, reg } = await open();
    try {
      const r = await reg.call("hog_app", {});
      assert.equal(r.isError, true);
      assert.equal(text(r), "The tool was stopped: resource limit: memory.");
      assert.deepEqual(liveWith(tmp.root), []);
      assert.equal((await reg.call("ok_app", {})).isError, false);
    } finally {
      await reg.close();
      await tmp.cleanup();
    }
  },
});

Deno.test({
  name: "a busy loop stops at its CPU limit; sleeping past it (no CPU) is fine",
  ignore: !enforceable,
  async fn() {
    const { tmp, reg } = await open();
    try {
      const [spin, nap] = await Promise.all([reg.call("spin_app", {}), reg.call("nap_app", {})]);
      assert.equal(text(spin), "The tool was stopped: resource limit: cpu.");
      assert.deepEqual(nap, { content: [{ type: "text", text: "rested\n" }], isError: false });
      assert.deepEqual(liveWith(tmp.root), []);
      assert.equal((await reg.call("ok_app", {})).isError, false);
    } finally {
      await reg.close();
      await tmp.cleanup();
    }
  },
});

Deno.test({
  name: "a session's harness is held to its limits: the session ends, saying why",
  ignore: !enforceable,
  async fn() {
    const { tmp, reg } = await open();
    try {
      const r = await reg.call("act_app", {});
      assert.equal(r.isError, true);
      assert.match(
        text(r),
        /^The tool session `s` ended: resource limit: memory \(max_memory_mb = 96\)\.$/,
      );
      const again = await reg.call("act_app", {});
      assert.equal(text(again), text(r)); // no restart
      assert.equal((await reg.call("ok_app", {})).isError, false);
    } finally {
      await reg.close();
      assert.deepEqual(liveWith(tmp.root), []);
      await tmp.cleanup();
    }
  },
});
