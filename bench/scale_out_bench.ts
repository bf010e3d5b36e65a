/**
 * Scale-out load test (issue 20): MCP clients through HAProxy (`docs/haproxy.cfg`) across
 * three `serve --http` replicas on loopback, each client initializing and making a fixed
 * number of calls cycling a built-in (`read`), a json command tool and a session-bound
 * tool (scale_out_run.ts). In the main run one replica gets SIGTERM (graceful drain) and
 * another SIGKILL a third of the way in; clients whose session is lost (404 / connection
 * error) initialize again through the balancer and finish. Then `toolhost sweep` cleans
 * what the SIGKILLed replica left and a `/proc` scan counts processes left. A second pair
 * of runs without kills (1 replica vs 3) gives the scale-out ratio. Every figure is
 * printed with the machine's load average, since other jobs may share the cores.
 *
 * Bounded: clients, calls and a wall-clock cap per run (`SCALE_MAX_MS`, default 150 s).
 * Loopback only. Usage: `deno run -A bench/scale_out_bench.ts` or `deno task bench --only
 * scale-out`. Env: `SCALE_CLIENTS` (200), `SCALE_CALLS` (20); BENCH_QUICK=1 → 40 × 10;
 * `SCALE_RATIO=0` skips the 1-vs-3 runs, `SCALE_RATIO_CLIENTS` sets their clients (100).
 * Standalone, it exits 1 when a client did not finish, a call returned an error result,
 * a session-bound result skipped a count, or a process was left.
 *
 * @module
 */

import { tempWorkspace } from "../tests/helpers/workspace.ts";
import { haproxyMissing } from "../tests/mcp/_haproxy.ts";
import {
  loadAverage,
  runScaleOut,
  SCALE_FILES,
  SCALE_TOML,
  type ScaleResult,
  sweepAndScan,
} from "./scale_out_run.ts";

const QUICK = Deno.env.get("BENCH_QUICK") === "1";
const CLIENTS = Number(Deno.env.get("SCALE_CLIENTS") ?? (QUICK ? 40 : 200));
const CALLS = Number(Deno.env.get("SCALE_CALLS") ?? (QUICK ? 10 : 20));
const MAX_MS = Number(Deno.env.get("SCALE_MAX_MS") ?? 150_000);
const RATIO = Deno.env.get("SCALE_RATIO") !== "0";
const RATIO_CLIENTS = Number(
  Deno.env.get("SCALE_RATIO_CLIENTS") ?? Math.min(CLIENTS, QUICK ? 40 : 100),
);

function pct(sorted: number[], p: number): number {
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** `p50 X ms, p99 Y ms` of `ms`. */
function p5099(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  return `p50 ${pct(s, 0.5).toFixed(1)} ms, p99 ${pct(s, 0.99).toFixed(1)} ms`;
}

/** Nothing went wrong in `r`: every client finished, no error result, no count skipped. */
function clean(r: ScaleResult): boolean {
  return r.unfinished === 0 && r.errorResults === 0 && r.countGaps === 0;
}

function mainLines(r: ScaleResult, before: string): string[] {
  return [
    `scale-out: ${CLIENTS} clients × ${CALLS} calls via HAProxy over 3 replicas, ` +
    `one SIGTERMed and one SIGKILLed at 1/3 (load average before ${before}, after ${loadAverage()}; ` +
    `nproc ${navigator.hardwareConcurrency})`,
    `  calls ok            ${r.calls} in ${r.seconds.toFixed(1)} s = ` +
    `${(r.calls / r.seconds).toFixed(0)} calls/s`,
    `  latency             ${p5099(r.latencies)}`,
    ...[...r.byTool].map(([tool, ms]) => `    ${tool.padEnd(17)} ${p5099(ms)}`),
    `    initialize+list   ${p5099(r.inits)} (${r.inits.length} sessions)`,
    `  error results       ${r.errorResults}`,
    `  count gaps          ${r.countGaps} (session-bound results out of sequence)`,
    `  sessions lost       ${r.sessionsLost} (re-initialized; from the drained/killed replicas)`,
    `  clients unfinished  ${r.unfinished}`,
    ...[...r.lossKinds].map(([k, n]) => `    lost ${n}× ${k}`),
    `  CPU                 replicas ${r.cpu.replicas.toFixed(1)} s + their tool processes ` +
    `${r.cpu.tools.toFixed(1)} s, clients ${r.cpu.clients.toFixed(1)} s, HAProxy ` +
    `${r.cpu.haproxy.toFixed(1)} s (${
      ((r.cpu.replicas + r.cpu.tools) * 1000 / Math.max(1, r.calls)).toFixed(1)
    } ms of replica + tool CPU per call)`,
    `  RSS per live session ${
      r.peakSessions ? (r.peakRssKiB / r.peakSessions / 1024).toFixed(2) : "?"
    } MiB (replica RSS ${(r.peakRssKiB / 1024).toFixed(0)} MiB at ${r.peakSessions} sessions)`,
  ];
}

/**
 * The `scale-out` bench section: figure lines (see the module documentation).
 *
 * @example
 * ```ts
 * import { benchScaleOut } from "./scale_out_bench.ts";
 * // for (const line of await benchScaleOut()) console.log(line);
 * ```
 */
export async function benchScaleOut(): Promise<string[]> {
  const missing = haproxyMissing();
  if (missing) return [`scale-out: SKIP (${missing})`];
  await using tmp = await tempWorkspace(SCALE_TOML, SCALE_FILES);
  const root = tmp.root;
  const before = loadAverage();
  const base = { root, calls: CALLS, maxMs: MAX_MS };
  const main = await runScaleOut({ ...base, replicas: 3, clients: CLIENTS, kill: true });
  const lines = mainLines(main, before);
  const left = await sweepAndScan(root, 3);
  lines.push(`  /proc scan          ${left.length} process(es) left after the run and the sweep`);
  let ok = clean(main) && left.length === 0;
  if (!RATIO) {
    lines.push("  scale-out ratio     not measured (SCALE_RATIO=0)");
  } else {
    const ratio = { ...base, clients: RATIO_CLIENTS, kill: false };
    const l1 = loadAverage();
    const one = await runScaleOut({ ...ratio, replicas: 1 });
    const l3 = loadAverage();
    const three = await runScaleOut({ ...ratio, replicas: 3 });
    const r1 = one.calls / one.seconds;
    const r3 = three.calls / three.seconds;
    lines.push(
      `  scale-out ratio     3 replicas / 1 = ${(r3 / r1).toFixed(2)}x ` +
        `(${r3.toFixed(0)} vs ${
          r1.toFixed(0)
        } calls/s, ${RATIO_CLIENTS} clients × ${CALLS} calls, ` +
        `no kills; load average ${l3} vs ${l1}; nproc ${navigator.hardwareConcurrency}: ` +
        `replicas share the cores, so at most ~cores/1 here)`,
    );
    ok &&= clean(one) && clean(three) && (await sweepAndScan(root, 3)).length === 0;
  }
  lines.push(`  verdict             ${ok ? "ok" : "FAILED"}`);
  return lines;
}

if (import.meta.main) {
  const lines = await benchScaleOut();
  for (const l of lines) console.log(l);
  if (lines.some((l) => /verdict\s+FAILED/.test(l))) Deno.exit(1);
}
