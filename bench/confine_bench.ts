/**
 * What confinement (bubblewrap, lib/sandbox) costs:
 *
 * - a confined call of `/bin/true` (`sandbox = "none"`: new user/PID/IPC/UTS/net
 *   namespaces, its own /proc, system folders bound read-only) against the same call
 *   unconfined, through the plain protocol's whole call path (`invokePlainCommand`: call
 *   directories, environment, normalization), interleaved so machine load hits all alike,
 *   with a pause before each call (an agent's calls are seconds apart; a warm sandbox is
 *   spawned in the background after each call). The goal (ratio ≤ 1.5x, time added ≤ 5
 *   ms) is judged on the default, warm sandboxes (lib/sandbox/warm_pool.ts); the cold
 *   path (`TOOLHOST_WARM_SANDBOXES=0`: the sandbox spawned by the call) is shown next to
 *   it, and warm calls back to back. Where the time goes: both command lines spawned raw
 *   (bwrap's own share), and toolhost's own CPU time per call; and the idle cost of a
 *   waiting spare (its resident memory);
 * - a confined session start (a shell harness, started by its first bound call, then
 *   closed) against the same session unconfined, interleaved (informative; sessions and
 *   bound calls keep the cold path).
 *
 * SKIPs (with the reason) where bubblewrap or user namespaces are unavailable.
 * Run alone: `deno run -A bench/confine_bench.ts`.
 *
 * @module
 */

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { Readable } from "node:stream";
import { invokePlainCommand, type PlainCommandCall } from "../lib/protocols/invoke.ts";
import { WAITER_SCRIPT } from "../lib/process/warm_script.ts";
import { WarmPool } from "../lib/sandbox/warm_pool.ts";
import { Registry } from "../lib/registry/registry.ts";
import { openConfine } from "../lib/sandbox/confine.ts";
import { sandboxSupport } from "../lib/sandbox/detect.ts";
import { loadWorkspace } from "../lib/workspace/load_workspace.ts";
import type { Workspace } from "../lib/workspace/types.ts";
import { reportGoal, skipGoal } from "./goals.ts";
import { installDenoHost } from "../cli.ts";

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

/** A pause before every measured call: an agent's calls are seconds apart, and a warm
 * sandbox is spawned in the background after each call. Stated in the report. */
const PAUSE_MS = 50;

const pause = () => new Promise((r) => setTimeout(r, PAUSE_MS));

/** One `/bin/true` call through the plain protocol's real path (call dirs, env, normalize). */
function trueCall(stateDir: string, extra: Partial<PlainCommandCall> = {}) {
  return async () => {
    const r = await invokePlainCommand({
      command: "/bin/true",
      template: [],
      properties: [],
      args: {},
      cwd: "/",
      stateDir,
      baseEnv: ENV,
      ...extra,
    });
    if (r.isError) throw new Error("the bench call failed");
  };
}

/** Resident memory (kB, summed: shared pages count in each) of a waiting spare's
 * processes: its bwrap, the namespace's init, the waiter. */
function spareRssKb(): number | undefined {
  let kb = 0;
  let found = false;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "latin1");
      if (!cmd.includes(WAITER_SCRIPT)) continue;
      const status = readFileSync(`/proc/${name}/status`, "latin1");
      kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      found = true;
    } catch { /* gone */ }
  }
  return found ? kb : undefined;
}

async function benchTrue(root: string, out: string[]): Promise<void> {
  const ws: Workspace = {
    root,
    manifestPath: join(root, "toolhost.toml"),
    artifacts: new Map(),
    evals: new Map(),
    extra: {},
  };
  const stateDir = join(root, "state");
  const c = openConfine({
    policy: { mode: "none", network: false, read: [], write: [] },
    stateDir,
  }, { ws, scope: [], executionPaths: [] });
  if (!c.ok) throw new Error(c.reason);
  const pool = new WarmPool();
  const argv = c.confine.wrap("/bin/true", [], "/", []);
  const runs: Record<string, () => Promise<unknown>> = {
    plain: trueCall(stateDir),
    warm: trueCall(stateDir, { confine: c.confine, warm: pool }),
    cold: trueCall(stateDir, { confine: c.confine }),
    rawTrue: () => rawRun("/bin/true", []),
    rawBwrap: () => rawRun(argv.command, argv.args),
  };
  const n = Deno.env.get("BENCH_QUICK") ? 20 : 60;
  try {
    for (let i = 0; i < 5; i++) for (const run of Object.values(runs)) await run(); // warm up
    const wall: Record<string, number[]> = {};
    const cpu: Record<string, number[]> = {};
    for (let i = 0; i < n; i++) {
      for (const [k, run] of Object.entries(runs)) {
        await pause();
        const [w, u] = await measure(run);
        (wall[k] ??= []).push(w);
        (cpu[k] ??= []).push(u);
        // The next spare, spawned after the call: toolhost's share of it (bwrap's is not).
        if (k === "warm") (cpu.spare ??= []).push((await measure(() => pool.settled()))[1]);
      }
    }
    await pool.settled();
    await pause();
    const rss = spareRssKb();
    const taken = pool.stats.taken;
    const back = await backToBack(runs.warm, n);
    reportTrue(out, { wall, cpu, n, rss, back, taken, backTaken: pool.stats.taken - taken });
  } finally {
    await pool.close();
  }
}

/** Warm calls with no pause: a spare is spawned only while no call of its key runs. */
async function backToBack(run: () => Promise<unknown>, n: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push(await time(run));
  return median(xs);
}

interface TrueFigures {
  wall: Record<string, number[]>;
  cpu: Record<string, number[]>;
  n: number;
  rss: number | undefined;
  back: number;
  /** Warm calls (of n + 5 warm-up) that ran in a spare. */
  taken: number;
  /** Back-to-back calls (of n) that ran in a spare. */
  backTaken: number;
}

function reportTrue(out: string[], f: TrueFigures): void {
  const m = (k: string) => median(f.wall[k]);
  const ratio = m("warm") / m("plain");
  const added = m("warm") - m("plain");
  const load = loadavg().map((l) => l.toFixed(2)).join(" ");
  out.push(
    `confine: /bin/true through invokePlainCommand (call dirs, env, normalize): unconfined ${
      m("plain").toFixed(2)
    } ms, confined warm ${m("warm").toFixed(2)} ms, confined cold ${
      m("cold").toFixed(2)
    } ms (median of ${f.n}, interleaved, ${PAUSE_MS} ms pause before each; load average ${load}, ${cpus().length} CPUs)`,
  );
  out.push(
    `confine: ratio ${ratio.toFixed(2)}x (warm)  ${reportGoal("confine.true-ratio", ratio)}`,
  );
  out.push(
    `confine: added ${added.toFixed(2)} ms (warm)  ${reportGoal("confine.true-added", added)}`,
  );
  out.push(
    `confine: cold (TOOLHOST_WARM_SANDBOXES=0) ratio ${
      (m("cold") / m("plain")).toFixed(2)
    }x, added ${(m("cold") - m("plain")).toFixed(2)} ms; ${f.taken} of ${
      f.n + 5
    } warm calls ran in a spare; warm back to back (no pause: a spare is spawned only once no call of the tool runs, so these run cold) ${
      f.back.toFixed(2)
    } ms, ${f.backTaken} of ${f.n} in a spare`,
  );
  // Where the time goes: the same command lines spawned raw, with no toolhost machinery.
  out.push(
    `confine: raw spawn, no toolhost: /bin/true ${m("rawTrue").toFixed(2)} ms, bwrap + /bin/true ${
      m("rawBwrap").toFixed(2)
    } ms (median, interleaved with the above)`,
  );
  const own = (k: string) => median(f.cpu[k]).toFixed(2);
  out.push(
    `confine: toolhost's own CPU per call (median): unconfined ${own("plain")} ms, warm ${
      own("warm")
    } ms, plus ${own("spare")} ms to spawn the next spare after it (off the call's path), cold ${
      own("cold")
    } ms; raw spawn /bin/true ${own("rawTrue")} ms, bwrap ${own("rawBwrap")} ms`,
  );
  out.push(
    `confine: idle cost of a waiting spare (bwrap, its init, the dash waiter): RSS summed ${
      f.rss === undefined ? "n/a" : `${(f.rss / 1024).toFixed(1)} MiB`
    }, one per tool (at most 4), ended after 10 s unused`,
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
  installDenoHost(); // as cli.ts does: a warm call's take checks its binds with Deno's own stat
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
