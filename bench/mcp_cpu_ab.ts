/**
 * `serve`'s own CPU per `read` call, for comparing checkouts: each checkout given on the
 * command line (default: this one) serves the same workspace through the raw JSON-RPC
 * client (raw_rpc_client.ts, so no SDK client cost enters), and the servers are measured
 * in interleaved rounds of sequential 4 KiB reads (or `ping`s), from /proc for each
 * server's process tree: the scheduler's run time of its threads (nanoseconds; the 10 ms
 * ticks of `/proc/<pid>/stat` where that is missing). Each server's line gives the median
 * of its rounds' µs per call and, after the first, the median of its per-round ratios to
 * the first server (rounds next to each other share the machine's load). One run on a
 * busy machine still moves by several percent: compare A and B in the same run, and
 * repeat it.
 *
 * The pace of the calls matters as much as the server: on a shared VM a server that waited
 * a few milliseconds for its next request runs it on cold caches, and both servers' CPU
 * per call grows by a like amount (on the 2-vCPU VM of Dec 3, 2 ms apart instead of back
 * to back: `serve` 180–220 → 690–720 µs, server-filesystem 420–550 → 1,060–1,150 µs).
 * The bench's SDK client spends ~350 µs per call between requests, so its ratio sits
 * above the back-to-back one. `GAP_MS` paces the calls with a timer to see it.
 *
 * ```sh
 * deno run -A bench/mcp_cpu_ab.ts /tmp/before .     # two checkouts, interleaved
 * WITH_FS=1 deno run -A bench/mcp_cpu_ab.ts         # and server-filesystem (npx)
 * PING=1 ROUNDS=20 deno run -A bench/mcp_cpu_ab.ts  # the protocol floor: `ping`
 * WITH_FS=1 GAP_MS=2 deno run -A bench/mcp_cpu_ab.ts  # calls 2 ms apart
 * ```
 *
 * Not part of `deno task bench` (no goal reads it).
 *
 * @module
 */

import { type RawRpc, rawRpc } from "./raw_rpc_client.ts";
import { treeCpuMs, treeCpuUs } from "./proc_cpu.ts";
import { FS_SERVER, sampleText } from "./mcp_throughput.ts";

const HERE = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.bench]
audience = "agent"

[artifacts.app.views.agent_tools.read]
builtin = "read"
`;

interface Server {
  name: string;
  rpc: RawRpc;
  call: () => Promise<string>;
  /** µs per call of each round. */
  rounds: number[];
}

/** Options of {@link cpuPerCall}. */
export interface CpuAbOptions {
  /** Checkouts whose `cli.ts serve` is measured. Default: this one. */
  checkouts?: string[];
  /** Also measure server-filesystem (through npx). Default false. */
  withFs?: boolean;
  /** Measure `ping` instead of a 4 KiB `read`. Default false. */
  ping?: boolean;
  /** Interleaved rounds. Default 10. */
  rounds?: number;
  /** Calls per server and round. Default 200. */
  perRound?: number;
  /** Pause between calls, ms (a timer; 0: back to back). Default 0. */
  gapMs?: number;
}

/**
 * CPU µs per call of each server, one line each.
 *
 * @example
 * ```ts
 * import { cpuPerCall } from "./mcp_cpu_ab.ts";
 * // for (const line of await cpuPerCall({ rounds: 5 })) console.log(line);
 * ```
 */
export async function cpuPerCall(opts: CpuAbOptions = {}): Promise<string[]> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost_cpu_ab_" }));
  const servers: Server[] = [];
  try {
    await Deno.mkdir(`${dir}/app`, { recursive: true });
    await Deno.writeTextFile(`${dir}/toolhost.toml`, TOML);
    await Deno.writeTextFile(`${dir}/app/file_4096.txt`, sampleText(4096));
    for (const [i, repo] of (opts.checkouts ?? [HERE]).entries()) {
      const rpc = await rawRpc(Deno.execPath(), [
        ...["run", "-A", "--config", `${repo}/deno.json`, `${repo}/cli.ts`, "serve"],
        ...["--eval", "app/bench", "--repo", dir, "--state-dir", `${dir}/.state-${i}`],
      ]);
      const args = { name: "read_app", arguments: { path: "file_4096.txt" } };
      servers.push(server(repo, rpc, args, opts.ping === true));
    }
    if (opts.withFs) {
      const rpc = await rawRpc("npx", ["-y", FS_SERVER, `${dir}/app`]);
      const args = { name: "read_text_file", arguments: { path: `${dir}/app/file_4096.txt` } };
      servers.push(server("server-filesystem", rpc, args, opts.ping === true));
    }
    return await measure(servers, opts.rounds ?? 10, opts.perRound ?? 200, opts.gapMs ?? 0);
  } finally {
    for (const s of servers) await s.rpc.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

function server(name: string, rpc: RawRpc, args: unknown, ping: boolean): Server {
  const call = ping ? () => rpc.call("ping", {}) : () => rpc.call("tools/call", args);
  return { name, rpc, call, rounds: [] };
}

async function measure(
  servers: Server[],
  rounds: number,
  per: number,
  gapMs: number,
): Promise<string[]> {
  for (const s of servers) for (let i = 0; i < 1500; i++) await s.call(); // JIT warm-up
  await new Promise((r) => setTimeout(r, 1000)); // start-up and warm-up work settles
  const pause = () => new Promise((r) => setTimeout(r, gapMs));
  const precise = treeCpuUs(servers[0].rpc.pid) !== undefined;
  const cpuUs = (pid: number) => (precise ? treeCpuUs(pid) : undefined) ?? treeCpuMs(pid) * 1000;
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 === 0 ? servers : [...servers].reverse()) {
      const before = cpuUs(s.rpc.pid);
      for (let i = 0; i < per; i++) {
        await s.call();
        if (gapMs > 0) await pause();
      }
      s.rounds.push((cpuUs(s.rpc.pid) - before) / per);
    }
  }
  const first = servers[0].rounds;
  return servers.map((s, i) => {
    const line = `${s.name}: ${median(s.rounds).toFixed(0)} µs/call (median of ${rounds} rounds` +
      `${precise ? "" : ", 10 ms ticks"})`;
    if (i === 0) return line;
    return `${line}, ${median(s.rounds.map((v, k) => v / first[k])).toFixed(3)}x the first`;
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

if (import.meta.main) {
  const lines = await cpuPerCall({
    checkouts: Deno.args.length > 0 ? Deno.args.map((a) => Deno.realPathSync(a)) : undefined,
    withFs: Deno.env.get("WITH_FS") === "1",
    ping: Deno.env.get("PING") === "1",
    rounds: Number(Deno.env.get("ROUNDS") ?? 10),
    gapMs: Number(Deno.env.get("GAP_MS") ?? 0),
  });
  for (const line of lines) console.log(line);
}
