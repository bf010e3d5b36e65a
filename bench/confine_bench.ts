/**
 * What confinement (bubblewrap, lib/sandbox) costs:
 *
 * - a confined call of `/bin/true` (`sandbox = "none"`: new user/PID/IPC/UTS/net
 *   namespaces, its own /proc, system folders bound read-only) against the same call
 *   unconfined, both through `runBounded`, interleaved so machine load hits both alike;
 *   median of each, as a ratio (goal ≤ 1.5x) and as time added (goal ≤ 5 ms);
 * - a confined session start (a shell harness, started by its first bound call, then
 *   closed) against the same session unconfined, interleaved (informative).
 *
 * SKIPs (with the reason) where bubblewrap or user namespaces are unavailable.
 * Run alone: `deno run -A bench/confine_bench.ts`.
 *
 * @module
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBounded } from "../lib/process/run.ts";
import { Registry } from "../lib/registry/registry.ts";
import { openConfine } from "../lib/sandbox/confine.ts";
import { sandboxSupport } from "../lib/sandbox/detect.ts";
import { loadWorkspace } from "../lib/workspace/load_workspace.ts";
import type { Workspace } from "../lib/workspace/types.ts";
import { reportGoal, skipGoal } from "./goals.ts";

const ENV = { PATH: "/usr/bin:/bin" };

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function benchTrue(root: string, out: string[]): Promise<void> {
  const ws: Workspace = {
    root,
    manifestPath: join(root, "toolhost.toml"),
    artifacts: new Map(),
    evals: new Map(),
    extra: {},
  };
  const c = openConfine({
    policy: { mode: "none", network: false, read: [], write: [] },
    stateDir: join(root, "state"),
  }, { ws, scope: [], executionPaths: [] });
  if (!c.ok) throw new Error(c.reason);
  const plain = () => runBounded({ command: "/bin/true", cwd: "/", env: ENV });
  const confined = () =>
    runBounded({ command: "/bin/true", cwd: "/", env: ENV, confine: c.confine });
  const n = Deno.env.get("BENCH_QUICK") ? 20 : 60;
  for (let i = 0; i < 5; i++) await plain(), await confined(); // warm up
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i++) {
    a.push(await time(plain));
    b.push(await time(confined));
  }
  const ratio = median(b) / median(a);
  const added = median(b) - median(a);
  out.push(
    `confine: /bin/true unconfined ${median(a).toFixed(2)} ms, confined ${
      median(b).toFixed(2)
    } ms (median of ${n}, interleaved)`,
  );
  out.push(`confine: ratio ${ratio.toFixed(2)}x  ${reportGoal("confine.true-ratio", ratio)}`);
  out.push(`confine: added ${added.toFixed(2)} ms  ${reportGoal("confine.true-added", added)}`);
}

function sessionWorkspace(root: string, sandbox: string): string {
  const dir = join(root, sandbox);
  mkdirSync(join(dir, "app"), { recursive: true });
  writeFileSync(
    join(dir, "toolhost.toml"),
    `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_sessions.s]
start = { command = "sh", args = ["-c", "echo ready; exec sleep 1000"] }
stop = { command = "true", args = [] }
sandbox = "${sandbox}"

[artifacts.app.views.agent_tools.t]
session = "s"
description = "Nothing."
protocol = "plain"
command = "true"
args = []
`,
  );
  return dir;
}

async function sessionStart(dir: string): Promise<number> {
  const reg = await Registry.open(await loadWorkspace(dir), "app/review", { env: ENV });
  try {
    return await time(async () => {
      const r = await reg.call("t_app", {});
      if (r.isError) throw new Error("the bound call failed");
    });
  } finally {
    await reg.close();
  }
}

async function benchSession(root: string, out: string[]): Promise<void> {
  const host = sessionWorkspace(root, "host");
  const read = sessionWorkspace(root, "read");
  const n = Deno.env.get("BENCH_QUICK") ? 4 : 10;
  await sessionStart(host), await sessionStart(read); // warm up
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i++) {
    a.push(await sessionStart(host));
    b.push(await sessionStart(read));
  }
  out.push(
    `confine: session start + first bound call: unconfined ${median(a).toFixed(1)} ms, confined ${
      median(b).toFixed(1)
    } ms, ratio ${(median(b) / median(a)).toFixed(2)}x (median of ${n}, interleaved)`,
  );
}

/**
 * The `confine` section of `deno task bench`.
 *
 * @example
 * ```ts
 * import { benchConfine } from "./confine_bench.ts";
 * await benchConfine();
 * ```
 */
export async function benchConfine(): Promise<string[]> {
  const out: string[] = [];
  const s = sandboxSupport();
  if (!s.ok) {
    out.push(`confine: SKIP (${s.reason})`);
    skipGoal("confine.true-ratio", s.reason);
    skipGoal("confine.true-added", s.reason);
    return out;
  }
  const root = mkdtempSync(join(tmpdir(), "toolhost_confine_bench_"));
  try {
    await benchTrue(root, out);
    await benchSession(root, out);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return out;
}

if (import.meta.main) { for (const line of await benchConfine()) console.log(line); }
