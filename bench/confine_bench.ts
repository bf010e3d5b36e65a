/**
 * What confinement (bubblewrap, lib/sandbox) costs:
 *
 * - a confined call of `/bin/true` (`sandbox = "none"`: new user/PID/IPC/UTS/net
 *   namespaces, its own /proc, system folders bound read-only) against the same call
 *   unconfined, both through `runBounded`, interleaved so machine load hits both alike;
 *   median of each, as a ratio (goal ≤ 1.5x) and as time added (goal ≤ 5 ms); and where
 *   the time goes: both command lines spawned raw (bwrap's own share), and toolhost's own
 *   CPU time per call (load hardly changes it, unlike wall time);
 * - a confined session start (a shell harness, started by its first bound call, then
 *   closed) against the same session unconfined, interleaved (informative).
 *
 * SKIPs (with the reason) where bubblewrap or user namespaces are unavailable.
 * Run alone: `deno run -A bench/confine_bench.ts`.
 *
 * @module
 */

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { Readable } from "node:stream";
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

/** Spawn `command` with no toolhost machinery (fd 3 a pipe, as bwrap's `--info-fd` needs). */
function rawRun(command: string, args: string[]): Promise<void> {
  return new Promise((resolve) => {
    const c = spawn(command, args, { env: ENV, stdio: ["ignore", "ignore", "ignore", "pipe"] });
    (c.stdio[3] as Readable | null)?.resume();
    c.once("exit", () => resolve());
  });
}

/** Wall time and this process's own CPU time (user + system) of one run, in ms. */
async function measure(fn: () => Promise<unknown>): Promise<[number, number]> {
  const cpu0 = process.cpuUsage();
  const wall = await time(fn);
  const cpu = process.cpuUsage(cpu0);
  return [wall, (cpu.user + cpu.system) / 1000];
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
  const argv = c.confine.wrap("/bin/true", [], "/", []);
  const runs: Record<string, () => Promise<unknown>> = {
    plain: () => runBounded({ command: "/bin/true", cwd: "/", env: ENV }),
    confined: () => runBounded({ command: "/bin/true", cwd: "/", env: ENV, confine: c.confine }),
    rawTrue: () => rawRun("/bin/true", []),
    rawBwrap: () => rawRun(argv.command, argv.args),
  };
  const n = Deno.env.get("BENCH_QUICK") ? 20 : 60;
  for (let i = 0; i < 5; i++) for (const run of Object.values(runs)) await run(); // warm up
  const wall: Record<string, number[]> = {};
  const cpu: Record<string, number[]> = {};
  for (let i = 0; i < n; i++) {
    for (const [k, run] of Object.entries(runs)) {
      const [w, u] = await measure(run);
      (wall[k] ??= []).push(w);
      (cpu[k] ??= []).push(u);
    }
  }
  const m = (k: string) => median(wall[k]);
  const ratio = m("confined") / m("plain");
  const added = m("confined") - m("plain");
  out.push(
    `confine: /bin/true unconfined ${m("plain").toFixed(2)} ms, confined ${
      m("confined").toFixed(2)
    } ms (median of ${n}, interleaved)`,
  );
  out.push(`confine: ratio ${ratio.toFixed(2)}x  ${reportGoal("confine.true-ratio", ratio)}`);
  out.push(`confine: added ${added.toFixed(2)} ms  ${reportGoal("confine.true-added", added)}`);
  // Where the time goes: the same command lines spawned raw, with no toolhost machinery.
  out.push(
    `confine: raw spawn, no toolhost: /bin/true ${m("rawTrue").toFixed(2)} ms, bwrap + /bin/true ${
      m("rawBwrap").toFixed(2)
    } ms (median, interleaved with the above)`,
  );
  const own = (k: string) => median(cpu[k]).toFixed(2);
  out.push(
    `confine: toolhost's own CPU per call (median): unconfined ${own("plain")} ms, confined ${
      own("confined")
    } ms; raw spawn /bin/true ${own("rawTrue")} ms, bwrap ${own("rawBwrap")} ms`,
  );
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
