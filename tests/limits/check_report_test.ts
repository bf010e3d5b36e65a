/**
 * `tools check` reports, per tool and session with limits, which enforcement is in
 * effect — `cgroup`, `rlimit` or `none (unsupported: REASON)` — so nothing is silently
 * unenforced; under `none` the tool is not ready and its calls are refused unrun.
 */

import assert from "node:assert/strict";
import {
  configureLimits,
  currentEnforcement,
  enforcementLabel,
} from "../../lib/limits/enforcement.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { runCapture } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.limited]
description = "Limited."
protocol = "plain"
command = "sh"
args = ["-c", "touch ran"]
max_memory_mb = 64
max_processes = 4

[artifacts.app.views.agent_tools.free]
description = "Unlimited."
protocol = "plain"
command = "echo"
args = ["hi"]

[artifacts.app.views.agent_sessions.s]
max_cpu_seconds = 30
start = { command = "sh", args = ["-c", "echo ready; sleep 60"] }
stop = { command = "true", args = [] }

[artifacts.app.views.agent_tools.bound]
session = "s"
description = "Bound."
protocol = "plain"
command = "echo"
args = ["bound"]
`;

interface Report {
  ready: boolean;
  tools: {
    name: string;
    limits?: Record<string, unknown>;
    checks: { check: string; ok: boolean }[];
  }[];
  sessions: { name: string; limits?: Record<string, unknown>; ready: boolean }[];
}

Deno.test("tools check: the enforcement in effect per limited tool and session", async () => {
  await using tmp = await tempWorkspace(TOML, { "app/README.md": "# app\n" });
  const r = await runCapture(["tools", "check", "--json", "app/review", "--repo", tmp.root]);
  const body = JSON.parse(r.out) as Report;
  const limited = body.tools.find((t) => t.name === "limited_app")!;
  const mode = currentEnforcement().mode;
  assert.deepEqual(limited.limits?.declared, { max_memory_mb: 64, max_processes: 4 });
  assert.equal(limited.limits?.enforcement, enforcementLabel(currentEnforcement()));
  assert.equal((limited.limits?.guarantees as string[]).length, mode === "none" ? 1 : 2);
  assert.equal(body.tools.find((t) => t.name === "free_app")!.limits, undefined);
  assert.deepEqual(body.sessions[0].limits?.declared, { max_cpu_seconds: 30 });
  assert.equal(limited.checks.at(-1)!.check, "limits");
  assert.equal(r.code, mode === "none" ? 1 : 0);
});

Deno.test("no enforcement possible: `none (unsupported: …)`, not ready, and the call is refused unrun", async () => {
  await using tmp = await tempWorkspace(TOML, { "app/README.md": "# app\n" });
  configureLimits({ mode: "cgroup", cgroupParent: `${tmp.root}/no-such-cgroup` });
  try {
    const r = await runCapture(["tools", "check", "--json", "app/review", "--repo", tmp.root]);
    assert.equal(r.code, 1);
    const body = JSON.parse(r.out) as Report;
    const limited = body.tools.find((t) => t.name === "limited_app")!;
    assert.match(String(limited.limits?.enforcement), /^none \(unsupported: .+\)$/);
    assert.deepEqual(limited.checks.at(-1), {
      check: "limits",
      ok: false,
      detail: `${limited.limits?.enforcement}: the tool would be refused`,
    });
    assert.equal(body.sessions[0].ready, false);
    const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
      stateDir: `${tmp.root}/.state`,
    });
    try {
      const res = await reg.call("limited_app", {});
      assert.equal(res.isError, true);
      assert.match((res.content[0] as { text: string }).text, /cannot be enforced on this host/);
      assert.equal(await Deno.stat(`${tmp.root}/app/ran`).then(() => true, () => false), false);
      assert.equal((await reg.call("free_app", {})).isError, false);
      const bound = await reg.call("bound_app", {});
      assert.match((bound.content[0] as { text: string }).text, /cannot be enforced/);
    } finally {
      await reg.close();
    }
  } finally {
    configureLimits({});
  }
});
