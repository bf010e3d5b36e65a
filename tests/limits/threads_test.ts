/**
 * `max_processes` counts threads as well as processes, whatever the enforcement: the
 * kernel's pids controller (cgroup mode) counts every task, and so must the rlimit
 * watchdog — else one process that starts thousands of threads (each a task, each a pid)
 * runs far past a limit meant to stop a fork bomb from exhausting the host's pids.
 */

import assert from "node:assert/strict";
import { currentEnforcement } from "../../lib/limits/enforcement.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

// Starts N threads that wait, holds them for up to 20 s (killed long before when the
// threads are counted), then says how many tasks it had.
const THREADS = `#!/usr/bin/env python3
import os, sys, threading, time
ev = threading.Event()
for _ in range(int(sys.argv[1])):
    threading.Thread(target=ev.wait, daemon=True).start()
tasks = len(os.listdir("/proc/self/task"))
time.sleep(float(sys.argv[2]))
print("tasks", tasks)
`;

const tool = (name: string, args: string[]) =>
  `\n[artifacts.app.views.agent_tools.${name}]\ndescription = "${name}"\nprotocol = "plain"\n` +
  `command = "tools/threads.py"\nargs = ${
    JSON.stringify(args)
  }\nmax_processes = 16\ntimeout_ms = 120000\n`;

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
  tool("few", ["4", "0.5"]) + tool("many", ["64", "20"]);

function python3(): boolean {
  try {
    return new Deno.Command("python3", { args: ["-c", "0"] }).outputSync().success;
  } catch {
    return false;
  }
}

const skip = currentEnforcement().mode === "none"
  ? "no enforcement of limits here"
  : !python3()
  ? "python3 is not installed"
  : undefined;

Deno.test("max_processes counts threads: 64 threads in one process are stopped at 16, 4 run", async (t) => {
  if (skip !== undefined) return console.log(`SKIP ${t.name}: ${skip}`);
  await using tmp = await tempWorkspace(TOML, {
    "app/tools/threads.py": { text: THREADS, mode: 0o755 },
  });
  const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
    stateDir: `${tmp.root}/.state`,
  });
  try {
    const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;
    const few = await reg.call("few_app", {});
    assert.equal(few.isError, false, text(few));
    assert.match(text(few), /^tasks 5\b/);
    const many = await reg.call("many_app", {});
    assert.equal(many.isError, true, `64 threads ran under max_processes = 16: ${text(many)}`);
    assert.match(text(many), /resource limit: processes/, JSON.stringify(many));
  } finally {
    await reg.close();
  }
});
