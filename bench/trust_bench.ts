/**
 * Trust features (issue 10):
 *
 * - per-call overhead of resource-limit enforcement: the same trivial plain tool (`true`)
 *   called through the registry without limits, with `max_processes` only (watchdog, no
 *   wrapper), with memory + CPU + processes under `rlimit` (`prlimit` wrapper + watchdog),
 *   and under `cgroup` where this host allows it — median ms per call and ratio to the
 *   unlimited call;
 * - lock verification on the example workspace: `Registry.open(examples, "app/review")`
 *   with `toolhost.lock` verified vs not (the difference is what verification adds), and
 *   the verification step alone (read + parse the lock, hash the listing, compare);
 * - per-call pin verification (issue 16): what the identity check of a tool's pinned
 *   files, folders and (with a lock) programs adds before each run on examples/.
 *
 * Run alone: `deno run -A bench/trust_bench.ts`.
 *
 * @module
 */

import { cpSync, mkdtempSync, rmSync } from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configureLimits, currentEnforcement } from "../lib/limits/enforcement.ts";
import { probeCgroup } from "../lib/limits/cgroup.ts";
import { buildLock } from "../lib/lock_build/build_lock.ts";
import { readLockFile, writeLockFile } from "../lib/lock/lock_file.ts";
import { RegistryLock } from "../lib/lock/registry_lock.ts";
import { Registry } from "../lib/registry/registry.ts";
import { lockInputs } from "../lib/registry/lock_state.ts";
import { loadWorkspace } from "../lib/workspace/load_workspace.ts";

const QUICK = Deno.env.get("BENCH_QUICK") === "1";
const CALLS = QUICK ? 40 : 150;

const tool = (name: string, extra: string) =>
  `\n[artifacts.app.views.agent_tools.${name}]\ndescription = "${name}"\nprotocol = "plain"\n` +
  `command = "true"\nargs = []\n${extra}\n`;

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
  tool("free", "") +
  tool("procs", "max_processes = 16") +
  tool("all", "max_processes = 16\nmax_memory_mb = 512\nmax_cpu_seconds = 60");

/** Median ms per call of each tool, calls interleaved round-robin so load hits all alike. */
async function perCall(reg: Registry, names: string[]): Promise<number[]> {
  for (const n of names) for (let i = 0; i < 5; i++) await reg.call(n, {}); // warm-up
  const times = names.map(() => [] as number[]);
  for (let i = 0; i < CALLS; i++) {
    for (const [j, n] of names.entries()) {
      const t0 = performance.now();
      const r = await reg.call(n, {});
      times[j].push(performance.now() - t0);
      if (r.isError) throw new Error(`${n}: ${JSON.stringify(r.content)}`);
    }
  }
  return times.map(median);
}

async function enforcementLines(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost_trust_"));
  const lines: string[] = [];
  try {
    Deno.mkdirSync(join(dir, "app"));
    Deno.writeTextFileSync(join(dir, "toolhost.toml"), TOML);
    const ws = await loadWorkspace(dir);
    const reg = await Registry.open(ws, "app/review", { stateDir: join(dir, ".state") });
    try {
      configureLimits({ mode: "rlimit" });
      const [free, procs, all] = await perCall(reg, ["free_app", "procs_app", "all_app"]);
      const row = (label: string, ms: number) =>
        `  ${label.padEnd(50)} ${ms.toFixed(2).padStart(6)} ms/call  ${
          (ms / free).toFixed(2)
        }x  (+${(ms - free).toFixed(2)} ms)`;
      lines.push(
        `enforcement overhead per call (median of ${CALLS} interleaved calls of \`true\`):`,
      );
      lines.push(`  ${"unlimited".padEnd(50)} ${free.toFixed(2).padStart(6)} ms/call  1.00x`);
      lines.push(row("rlimit: max_processes only (watchdog)", procs));
      lines.push(row("rlimit: memory+cpu+processes (prlimit+watchdog)", all));
      const probe = probeCgroup();
      if (probe.ok) {
        configureLimits({ mode: "cgroup" });
        const [cg] = await perCall(reg, ["all_app"]);
        lines.push(row("cgroup: memory+cpu+processes (child group)", cg));
      } else lines.push(`  cgroup: not measured here (${probe.reason})`);
    } finally {
      configureLimits({});
      await reg.close();
    }
    lines.push(`  enforcement in effect by default here: ${currentEnforcement().mode}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function lockLines(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost_lockbench_"));
  const examples = new URL("../examples", import.meta.url).pathname;
  try {
    cpSync(examples, dir, { recursive: true });
    const ws = await loadWorkspace(dir);
    const stateDir = join(dir, ".state");
    await writeLockFile(ws, await buildLock(ws, { stateDir }));
    const runs = QUICK ? 10 : 40;
    const open = async (lock: boolean | "ignore") => {
      const t: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        const reg = await Registry.open(ws, "app/review", { stateDir, lock });
        t.push(performance.now() - t0);
        await reg.close();
      }
      return median(t);
    };
    const off = await open("ignore");
    const on = await open(true);
    const reg = await Registry.open(ws, "app/review", { stateDir, lock: "ignore" });
    const source = {
      workspace: ws,
      selection: reg.selection,
      listing: reg.list(),
      pins: reg.pins,
      env: reg.env,
    };
    await reg.close();
    const step: number[] = [];
    let inputs = await lockInputs(source);
    for (let i = 0; i < runs * 5; i++) {
      const t0 = performance.now();
      inputs = await lockInputs(source); // declarations, programs (hashes memoized)
      RegistryLock.verify(await readLockFile(ws), inputs);
      step.push(performance.now() - t0);
    }
    return [
      `lock verification on examples/ (app/review: ${inputs.listing.length} tools, median of ${runs}):`,
      `  Registry.open without lock verification   ${off.toFixed(2)} ms`,
      `  Registry.open with toolhost.lock verified ${on.toFixed(2)} ms  (+${
        (on - off).toFixed(2)
      } ms)`,
      `  verification step alone (declarations, programs, read, compare) ${
        median(step).toFixed(3)
      } ms`,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Median wall ms of `reg.verifyBeforeRun(tool)` (the check every command call now makes),
 * and its mean CPU ms: on a loaded machine the wall time mostly measures the scheduler,
 * the CPU time what the check itself costs.
 */
async function verifyCost(
  reg: Registry,
  tool: string,
  runs: number,
): Promise<{ wall: number; cpu: number }> {
  for (let i = 0; i < 50; i++) await reg.verifyBeforeRun(tool); // warm-up
  const t: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const refused = await reg.verifyBeforeRun(tool);
    t.push(performance.now() - t0);
    if (refused) throw new Error(`${tool}: ${JSON.stringify(refused.content)}`);
  }
  const cpu = process.cpuUsage(cpu0);
  return { wall: median(t), cpu: (cpu.user + cpu.system) / 1000 / runs };
}

/**
 * Per-call pin verification on examples/: what `verifyBeforeRun` adds to each command
 * call — identity checks of the tool's (and its session's) pinned files and folders, and
 * with a lock its programs' — without and with `toolhost.lock`.
 *
 * @example
 * ```ts
 * import { verifyLines } from "./trust_bench.ts";
 * for (const line of await verifyLines()) console.log(line);
 * ```
 */
export async function verifyLines(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost_verifybench_"));
  const examples = new URL("../examples", import.meta.url).pathname;
  const runs = QUICK ? 200 : 2000;
  try {
    cpSync(examples, dir, { recursive: true });
    const ws = await loadWorkspace(dir);
    const stateDir = join(dir, ".state");
    const tools = ["stats_app", "search_app", "counter_add_app"];
    const lines = [
      `per-call pin verification on examples/ (median wall / mean CPU of ${runs} checks, ` +
      `before each run; load average ${loadAverage()}; goal ≤ 200 µs):`,
    ];
    for (const locked of [false, true]) {
      if (locked) await writeLockFile(ws, await buildLock(ws, { stateDir }));
      const reg = await Registry.open(ws, "app/review", { stateDir, lock: locked });
      try {
        for (const tool of tools) {
          const paths = Object.values(reg.provenance().executionPaths).length;
          const { wall, cpu } = await verifyCost(reg, tool, runs);
          lines.push(
            `  ${locked ? "with lock   " : "without lock"} ${tool.padEnd(16)} ${
              (wall * 1000).toFixed(1).padStart(6)
            } µs wall ${
              (cpu * 1000).toFixed(1).padStart(6)
            } µs CPU  (${paths} pinned keys in the eval)`,
          );
        }
      } finally {
        await reg.close();
      }
    }
    return lines;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The 1-minute load average (`/proc/loadavg`), or "unknown". */
function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
  } catch {
    return "unknown";
  }
}

/**
 * Run the trust benchmarks and return the report lines.
 *
 * @example
 * ```ts
 * import { benchTrust } from "./trust_bench.ts";
 * for (const line of await benchTrust()) console.log(line);
 * ```
 */
export async function benchTrust(): Promise<string[]> {
  return [...(await enforcementLines()), ...(await lockLines()), ...(await verifyLines())];
}

if (import.meta.main) {
  for (const line of await benchTrust()) console.log(line);
}
