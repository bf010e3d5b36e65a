/**
 * Process execution overhead and memory:
 *
 * - per-call cost of a trivial json tool (a tiny sh script printing a fixed result)
 *   against a raw `node:child_process` spawn of the same program with the same stdin:
 *   the ways to start it in its own session (`detached`, through `setsid`:
 *   lib/process/session_launcher.ts, what a cold call uses under Deno), `runBounded` +
 *   `normalizeJsonOutput`, the whole `invokeJsonCommand` (call dirs, environment,
 *   request, cleanup) cold, and — the goal's figure (under 1.3x and under 3 ms added
 *   per call) — the whole call as a Registry makes it, with its pool of warm spares
 *   (pre-made session leaders, lib/sandbox/warm_pool.ts: the spare's spawn and call
 *   directories leave the call's path, not its CPU, which is counted);
 * - 200 sequential and 200 concurrent calls (wall time, calls/s);
 * - peak RSS (VmHWM, measured in a fresh child process) while a tool prints 1 GiB
 *   (256 MiB with BENCH_QUICK=1), on stdout and on stderr: with the default caps (the
 *   group is killed just past 16 MiB), and — informative, the pattern of a session that
 *   drains its harness's output indefinitely — with the caps raised so everything is
 *   drained (16 MiB retained). Under Deno the latter grows with throughput because
 *   node-compat stream chunks are collected lazily (this bench runs under Deno only).
 *
 * Run alone: `deno run -A bench/process_bench.ts`.
 *
 * @module
 */

import { spawn } from "node:child_process";
import { Buffer } from "node:buffer";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { runBounded } from "../lib/process/run.ts";
import { invokeJsonCommand } from "../lib/protocols/invoke.ts";
import { normalizeJsonOutput } from "../lib/protocols/json_output.ts";
import { buildJsonRequest } from "../lib/protocols/json_request.ts";
import { sessionLauncher } from "../lib/process/session_launcher.ts";
import { WarmPool } from "../lib/sandbox/warm_pool.ts";
import { reportGoal } from "./goals.ts";

const MIB = 1024 * 1024;
const TOOL = new URL("../tests/fixtures/tools/trivial_json.sh", import.meta.url).pathname;
const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/" };
/** A typical user's environment, about 3 KiB (the spare's base makes it cost nothing). */
const ENV_3K: Record<string, string> = { ...ENV };
for (let i = 0; i < 38; i++) ENV_3K[`USER_VAR_${i}`] = `value-${i}-${"x".repeat(60)}`;
const CONTEXT = { artifactId: "bench", artifactPath: "/", scope: {} };
const REQUEST = buildJsonRequest(
  { ...CONTEXT, outputDir: "/nonexistent/output", tmpDir: "/nonexistent/tmp" },
  { query: "x" },
);

type Call = () => Promise<unknown>;

/** A raw spawn of the tool: plain, `detached` (own session), or through `setsid PROGRAM`. */
function rawCall(
  detached = false,
  launcher?: string,
  env: Record<string, string> = ENV,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const [file, args] = launcher ? [launcher, ["--", TOOL]] : [TOOL, []];
    const child = spawn(file, args, {
      cwd: "/",
      env,
      detached,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => chunks.push(d));
    child.stderr.resume();
    child.stdin.on("error", () => {});
    child.stdin.end(REQUEST);
    child.on("error", reject);
    child.on("close", () => resolve(Buffer.concat(chunks)));
  });
}

async function boundedCall(): Promise<void> {
  const run = await runBounded({ command: TOOL, cwd: "/", env: ENV, stdin: REQUEST });
  const result = await normalizeJsonOutput(run, "/nonexistent/output");
  if (result.isError) throw new Error("the trivial tool failed");
}

function fullCall(stateDir: string, warm?: WarmPool, env: Record<string, string> = ENV): Call {
  return async () => {
    const result = await invokeJsonCommand({
      warm,
      command: TOOL,
      argv: [],
      cwd: "/",
      stateDir,
      baseEnv: env,
      context: CONTEXT,
      args: { query: "x" },
    });
    if (result.isError) throw new Error("the trivial tool failed");
  };
}

async function sequential(call: Call, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await call();
  return performance.now() - t0;
}

async function concurrent(call: Call, n: number): Promise<number> {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: n }, () => call()));
  return performance.now() - t0;
}

/** CPU time of this process and of its reaped children, in ms (from `/proc/self/stat`,
 * 10 ms ticks for the children: meaningful over many calls). */
function cpuMs(): { self: number; children: number } {
  const u = process.cpuUsage();
  const f = readFileSync("/proc/self/stat", "latin1");
  const x = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return { self: (u.user + u.system) / 1000, children: (Number(x[13]) + Number(x[14])) * 10 };
}

/**
 * Sequential per-call cost: rounds interleaved across methods so drift hits all alike;
 * each method's figure is the median of its round means. Also each method's CPU per call
 * (toolhost's own and its children's, summed over all rounds): on a shared machine wall
 * time mostly measures the wait for a core, CPU time what the call costs.
 */
async function perCall(calls: Record<string, Call>, rounds: number, per: number) {
  const means: Record<string, number[]> = {};
  const cpu: Record<string, { self: number; children: number }> = {};
  for (const [name, call] of Object.entries(calls)) {
    await sequential(call, 20); // warm-up
    means[name] = [];
    cpu[name] = { self: 0, children: 0 };
  }
  for (let r = 0; r < rounds; r++) {
    for (const [name, call] of Object.entries(calls)) {
      const before = cpuMs();
      means[name].push((await sequential(call, per)) / per);
      const after = cpuMs();
      cpu[name].self += (after.self - before.self) / (rounds * per);
      cpu[name].children += (after.children - before.children) / (rounds * per);
    }
  }
  const out: Record<string, number> = {};
  for (const [name, xs] of Object.entries(means)) {
    out[name] = [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  }
  return { ms: out, cpu };
}

async function overheadLines(
  stateDir: string,
  warm: WarmPool,
  warm3k: WarmPool,
): Promise<string[]> {
  const launcher = sessionLauncher();
  const calls: Record<string, Call> = {
    raw: () => rawCall(),
    rawGroup: () => rawCall(true),
    ...(launcher ? { rawSetsid: () => rawCall(false, launcher) } : {}),
    bounded: boundedCall,
    full: fullCall(stateDir),
    warm: fullCall(stateDir, warm),
  };
  const { ms, cpu } = await perCall(calls, 10, 20);
  const vs = (v: number, base: number) =>
    `ratio ${(v / base).toFixed(2)}x  added ${(v - base).toFixed(2)} ms`;
  const line = (label: string, v: number) =>
    `${label.padEnd(38)} ${v.toFixed(2)} ms/call  ${vs(v, ms.raw)}`;
  const lines = [
    `trivial json tool, 200 sequential calls each (10 interleaved rounds of 20, median round):`,
    `${"raw node:child_process spawn".padEnd(38)} ${ms.raw.toFixed(2)} ms/call`,
    line("raw spawn, detached (own group)", ms.rawGroup),
    ...(launcher ? [line(`raw spawn through ${launcher} (own group)`, ms.rawSetsid)] : []),
    line("runBounded + normalizeJsonOutput", ms.bounded),
    line("invokeJsonCommand cold (dirs+env+cleanup)", ms.full),
    line("invokeJsonCommand, spare (dirs+env+cleanup)", ms.warm) +
    `  (the whole call, with the spares a Registry keeps: ${
      reportGoal("process.json-call", ms.warm / ms.raw)
    }; ${reportGoal("process.json-call-added", ms.warm - ms.raw)})`,
    launcher
      ? `${"runBounded+normalize vs raw setsid".padEnd(38)} ${vs(ms.bounded, ms.rawSetsid)}`
      : `${"runBounded+normalize vs raw detached".padEnd(38)} ${vs(ms.bounded, ms.rawGroup)}`,
  ];
  lines.push(
    `  (spare: ${warm.stats.taken} calls ran in a spare, ${warm.stats.dirsTaken} took ` +
      `directories made while the call before ran)`,
  );
  lines.push("CPU per call, toolhost's own + its children's (all 200 calls of each method):");
  for (const [name, c] of Object.entries(cpu)) {
    lines.push(
      `  ${name.padEnd(9)} ${c.self.toFixed(2)} + ${c.children.toFixed(2)} = ${
        (c.self + c.children).toFixed(2)
      } ms  (${((c.self + c.children) / (cpu.raw.self + cpu.raw.children)).toFixed(2)}x raw)`,
    );
  }
  lines.push(
    ...await spacedLines({
      raw: calls.raw,
      full: calls.full,
      warm: calls.warm,
      // The same with a typical 3 KiB environment (its own pool, as a Registry has).
      raw3k: () => rawCall(false, undefined, ENV_3K),
      full3k: fullCall(stateDir, undefined, ENV_3K),
      warm3k: fullCall(stateDir, warm3k, ENV_3K),
    }),
    `  (warm3k: ${warm3k.stats.taken} of its 40 calls ran in a spare)`,
  );
  for (const [name, call] of Object.entries(calls)) {
    const wall = await concurrent(call, 200);
    lines.push(
      `200 concurrent ${name.padEnd(9)} ${wall.toFixed(0).padStart(6)} ms wall  ` +
        `${(200 / (wall / 1000)).toFixed(0)} calls/s`,
    );
  }
  return lines;
}

/** Gap between spaced calls: an agent's calls come after its model's turn. */
const GAP_MS = 50;

/**
 * Informative: calls `GAP_MS` apart (interleaved, 40 each), the median latency of each —
 * where a spare is spawned between calls, not during the next one.
 */
async function spacedLines(calls: Record<string, Call>): Promise<string[]> {
  const ms: Record<string, number[]> = {};
  for (const name of Object.keys(calls)) ms[name] = [];
  for (let i = 0; i < 40; i++) {
    for (const [name, call] of Object.entries(calls)) {
      await new Promise((r) => setTimeout(r, GAP_MS));
      const t0 = performance.now();
      await call();
      ms[name].push(performance.now() - t0);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const raw = median(ms.raw);
  return [
    `calls ${GAP_MS} ms apart (40 each, interleaved, median latency; informative; ratios to raw):`,
    ...Object.entries(ms).map(([name, xs]) =>
      `  ${name.padEnd(9)} ${median(xs).toFixed(2)} ms  ratio ${(median(xs) / raw).toFixed(2)}x  ` +
      `added ${(median(xs) - raw).toFixed(2)} ms`
    ),
  ];
}

/** Child-process part of the RSS measurement. */
async function rssChild(mode: string, bytes: number): Promise<void> {
  const hwm = () =>
    Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;
  const before = hwm();
  const toStderr = mode.startsWith("stderr");
  const redirect = toStderr ? " >&2" : "";
  const t0 = performance.now();
  const r = await runBounded({
    command: "/bin/sh",
    args: ["-c", `head -c ${bytes} /dev/zero${redirect}`],
    cwd: "/",
    env: ENV,
    maxStdoutBytes: mode === "stdout-drain" ? 4096 * MIB : undefined,
    retainStdoutBytes: 16 * MIB,
    maxStderrBytes: mode === "stderr-drain" ? 4096 * MIB : undefined,
  });
  const ms = performance.now() - t0;
  console.log(JSON.stringify({
    before,
    after: hwm(),
    read: toStderr ? r.stderrBytes : r.stdoutBytes,
    overflow: r.stdoutOverflow || r.stderrOverflow,
    ms,
  }));
}

function runRssChild(mode: string, bytes: number): Promise<Record<string, number | boolean>> {
  const self = new URL(import.meta.url).pathname;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["run", "-A", self, "--rss-child", mode, String(bytes)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`RSS child exited with ${code}`));
      else resolve(JSON.parse(out));
    });
  });
}

async function rssLines(bytes: number): Promise<string[]> {
  const lines = [`peak RSS (VmHWM of a fresh process) while a tool prints ${bytes / MIB} MiB:`];
  const labels: Record<string, string> = {
    "stdout-default": "stdout, default 16 MiB cap (killed)",
    "stderr-default": "stderr, default 16 MiB cap (killed)",
    "stdout-drain": "stdout, caps raised: all drained, 16 MiB kept",
    "stderr-drain": "stderr, caps raised: all drained",
  };
  for (const [mode, label] of Object.entries(labels)) {
    const r = await runRssChild(mode, bytes);
    const before = r.before as number;
    const after = r.after as number;
    lines.push(
      `${label.padEnd(46)} peak ${after.toFixed(0)} MiB (idle ${before.toFixed(0)} MiB, ` +
        `+${(after - before).toFixed(0)} MiB); read ${((r.read as number) / MIB).toFixed(0)} MiB ` +
        `in ${(r.ms as number).toFixed(0)} ms${r.overflow ? ", overflow" : ""}`,
    );
  }
  return lines;
}

/**
 * Run the process benchmark and return its report lines.
 *
 * @example
 * ```ts
 * import { benchProcess } from "./process_bench.ts";
 * for (const line of await benchProcess()) console.log(line);
 * ```
 */
export async function benchProcess(): Promise<string[]> {
  const quick = process.env.BENCH_QUICK === "1";
  const stateDir = mkdtempSync(join(tmpdir(), "toolhost_bench_process_"));
  // What a Registry passes every unlimited command call (lib/registry/registry.ts).
  const warm = new WarmPool();
  const warm3k = new WarmPool();
  try {
    const lines = await overheadLines(stateDir, warm, warm3k);
    lines.push(...await rssLines(quick ? 256 * MIB : 1024 * MIB));
    return lines;
  } finally {
    await warm.close();
    await warm3k.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--rss-child");
  if (at >= 0) await rssChild(args[at + 1], Number(args[at + 2]));
  else for (const line of await benchProcess()) console.log(line);
}
