/**
 * The MCP `read` comparison of mcp_bench.ts: `tools/call` round trips through one SDK
 * client, toolhost's `read_app` (through `toolhost serve`) against server-filesystem's
 * `read_text_file`, and each server's own CPU per call.
 *
 * Fair to both servers:
 * - one warm-up, the same for both, covering every file size, before anything is counted
 *   (a runtime's JIT and heap settle on the first hundreds of calls; counted in the first
 *   size's batches they would inflate that size alone);
 * - then a wait until neither server's process tree uses CPU (npx's own start-up work, a
 *   late GC), bounded;
 * - then interleaved batches: every round runs every size on both servers, in an order
 *   that alternates, so the machine's drift over seconds is shared by all figures.
 *
 * A server's CPU is its whole process tree's, from /proc (proc_cpu.ts): for
 * server-filesystem that is npx plus the node process it starts.
 *
 * @module
 */

import process from "node:process";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { reportGoal } from "./goals.ts";
import { treeCpuMs } from "./proc_cpu.ts";

/** The official filesystem server both MCP benches compare with (through npx). */
export const FS_SERVER = "@modelcontextprotocol/server-filesystem@2026.8.31";

/** An SDK client and the pid of the server process it started. */
export interface Connected {
  client: Client;
  pid: number;
}

/** One call to time. */
export type Call = () => Promise<unknown>;

/** File sizes of the comparison; 4 KiB is the headline (a typical source file). */
export const SIZES = [64, 4096, 16384];

/**
 * Run `call` `n` times in sequence; the wall time of each, ms.
 *
 * @example
 * ```ts
 * import { timeCalls } from "./mcp_throughput.ts";
 * const ms = await timeCalls(() => Promise.resolve(), 3);
 * console.log(ms.length); // 3
 * ```
 */
export async function timeCalls(call: Call, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    out.push(performance.now() - t);
  }
  return out;
}

/**
 * `size` bytes of text in lines of 66 bytes.
 *
 * @example
 * ```ts
 * import { sampleText } from "./mcp_throughput.ts";
 * console.log(sampleText(100).length); // 100
 * ```
 */
export function sampleText(size: number): string {
  const line = "the quick brown fox jumps over the lazy dog 0123456789 abcdefghij\n";
  return line.repeat(Math.ceil(size / line.length)).slice(0, size);
}

/** Warm-up calls per size and server, in rounds of {@link WARM_ROUND}. */
const WARM_CALLS = 600;
const WARM_ROUND = 100;

/**
 * Wait until none of `pids`' process trees used CPU over a 200 ms window (at most 20
 * windows): work left over from start-up or warm-up is then not counted in any batch.
 */
async function settle(pids: number[]): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const before = pids.map(treeCpuMs);
    await new Promise((r) => setTimeout(r, 200));
    if (pids.every((p, j) => treeCpuMs(p) === before[j])) return;
  }
}

interface Tally {
  /** Wall time of the batches, ms. */
  total: number;
  /** This process (the SDK client), µs. */
  clientCpu: number;
  /** The server's process tree, ms. */
  serverCpu: number;
}

type Side = "th" | "fs";

interface SizeRun {
  size: number;
  calls: Record<Side, Call>;
  tally: Record<Side, Tally>;
}

/**
 * The interleaved comparison at every size (module doc); report lines, with the
 * `mcp.sdk-*` and `mcp.server-cpu` goals.
 *
 * @example
 * ```ts
 * import { throughput } from "./mcp_throughput.ts";
 * // const lines = await throughput(th, fs, dir, true);
 * ```
 */
export async function throughput(
  th: Connected,
  fs: Connected,
  dir: string,
  quick: boolean,
): Promise<string[]> {
  const batches = quick ? 10 : 30;
  const batch = 100;
  const runs: SizeRun[] = [];
  for (const size of SIZES) {
    const name = `file_${size}.txt`;
    await Deno.writeTextFile(`${dir}/app/${name}`, sampleText(size));
    const tally = () => ({ total: 0, clientCpu: 0, serverCpu: 0 });
    runs.push({
      size,
      calls: {
        th: () => th.client.callTool({ name: "read_app", arguments: { path: name } }),
        fs: () =>
          fs.client.callTool({ name: "read_text_file", arguments: { path: `${dir}/app/${name}` } }),
      },
      tally: { th: tally(), fs: tally() },
    });
  }
  for (let r = 0; r < WARM_CALLS / WARM_ROUND; r++) {
    for (const run of runs) {
      await timeCalls(run.calls.th, WARM_ROUND);
      await timeCalls(run.calls.fs, WARM_ROUND);
    }
  }
  await settle([th.pid, fs.pid]);
  const pids: Record<Side, number> = { th: th.pid, fs: fs.pid };
  for (let r = 0; r < batches; r++) {
    for (const [i, run] of runs.entries()) {
      const order: Side[] = (r + i) % 2 === 0 ? ["th", "fs"] : ["fs", "th"];
      for (const k of order) await timeBatch(run.calls[k], batch, pids[k], run.tally[k]);
    }
  }
  const lines = [
    `tools/call over stdio, sequential, ${batches} interleaved batches × ${batch} calls per ` +
    `server and size (after ${WARM_CALLS} warm-up calls each):`,
  ];
  for (const run of runs) lines.push(...report(run, batches * batch));
  return lines;
}

async function timeBatch(call: Call, n: number, pid: number, tally: Tally): Promise<void> {
  const cpu = process.cpuUsage();
  const server = treeCpuMs(pid);
  const t = performance.now();
  await timeCalls(call, n);
  tally.total += performance.now() - t;
  tally.serverCpu += treeCpuMs(pid) - server;
  const used = process.cpuUsage(cpu);
  tally.clientCpu += used.user + used.system;
}

function report(run: SizeRun, calls: number): string[] {
  const { th, fs } = run.tally;
  const perCall = (us: number) => (us / calls).toFixed(0);
  const rate = (ms: number) => (calls / (ms / 1000)).toFixed(0);
  const sdk = fs.total / th.total; // toolhost's calls/s over server-filesystem's
  const lines = [
    `  ${String(run.size).padStart(5)} B file: toolhost read_app ${rate(th.total)} calls/s, ` +
    `server-filesystem read_text_file ${rate(fs.total)} calls/s, ratio ${sdk.toFixed(2)}× (${
      reportGoal(`mcp.sdk-${run.size}`, sdk)
    }); client CPU per call ${perCall(th.clientCpu)} / ${perCall(fs.clientCpu)} µs; ` +
    `server CPU per call ${perCall(th.serverCpu * 1000)} / ${perCall(fs.serverCpu * 1000)} µs`,
  ];
  if (run.size === 4096) {
    const cpu = th.serverCpu / fs.serverCpu;
    lines.push(
      `  4096 B: serve's own CPU per call / server-filesystem's ${cpu.toFixed(2)}× (${
        reportGoal("mcp.server-cpu", cpu)
      })`,
    );
  }
  return lines;
}
