/**
 * `Registry.close()` with ordinary (unbound) calls still running: it cancels each (its
 * whole process group is ended), waits for their cleanup, and only then resolves; calls
 * made afterwards are refused with an error result and start nothing.
 */

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { callsRoot } from "../../lib/process/call_dirs.ts";
import { readProcStat } from "../../lib/process/proc_identity.ts";
import { Registry } from "../../lib/registry/registry.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

// Records its pid and a child's, marks that it runs, then waits forever.
const SLOW = `#!/bin/sh
sleep 1000 & echo $! >>pids
echo $$ >>pids
echo run >>runs.log
wait
`;

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.slow]
description = "Runs until cancelled."
protocol = "plain"
command = "./slow.sh"
args = ["{tag}"]
input_schema = { type = "object", properties = { tag = { type = "string" } }, required = ["tag"], additionalProperties = false }
`;

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/", LC_ALL: "C" };

/** A value that must never appear in a message. */
const TAG = "tag-value-7f3a";

function running(pid: number): boolean {
  const st = readProcStat(pid);
  return st !== null && st.state !== "Z";
}

function lines(path: string): string[] {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter((l) => l !== "") : [];
}

function textOf(r: ToolResult): string {
  const b = r.content[0];
  return b?.type === "text" ? b.text : "";
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000; // a cap, not a timing assertion
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

Deno.test("close() cancels in-flight calls, waits for their cleanup, then refuses new calls", async () => {
  await using ws = await tempWorkspace(TOML, {
    "app/README.md": "# app\n",
    "app/slow.sh": { text: SLOW, mode: 0o755 },
  });
  const state = join(ws.root, ".state");
  const pidFile = join(ws.root, "app", "pids");
  const runs = join(ws.root, "app", "runs.log");
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    stateDir: state,
    env: ENV,
  });
  let settled = false;
  const inflight = [reg.call("slow_app", { tag: TAG }), reg.call("slow_app", { tag: TAG })];
  const all = Promise.all(inflight).finally(() => (settled = true));
  try {
    await waitFor(() => lines(pidFile).length === 4, "both calls to run");
    const pids = lines(pidFile).map(Number);
    await Promise.all([reg.close(), reg.close()]); // concurrent closes share one outcome
    assert.ok(settled, "close() resolved before its in-flight calls settled");
    for (const pid of pids) assert.equal(running(pid), false, "a call's process outlived close()");
    const calls = callsRoot(state);
    assert.deepEqual(existsSync(calls) ? readdirSync(calls) : [], [], "a call directory is left");
    for (const r of await all) {
      assert.equal(r.isError, true);
      assert.ok(!textOf(r).includes(TAG), "a message echoed an argument value");
    }
    const late = await reg.call("slow_app", { tag: TAG });
    assert.equal(late.isError, true);
    assert.match(textOf(late), /registry is closed/);
    assert.ok(!textOf(late).includes(TAG), "a message echoed an argument value");
    assert.equal(lines(runs).length, 2, "a call after close() started the tool");
  } finally {
    await reg.close();
    for (const pid of lines(pidFile).map(Number)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
    }
  }
});
