/**
 * `serve`'s own CPU per `read` call, for comparing checkouts: each checkout given on the
 * command line (default: this one) serves the same workspace through the raw JSON-RPC
 * client (raw_rpc_client.ts, so no SDK client cost enters), and the servers are measured
 * in interleaved rounds of sequential 4 KiB reads (or `ping`s), from /proc for each
 * server's process tree. One run on a busy machine moves by tens of µs: compare A and B
 * in the same run, and repeat it.
 *
 * ```sh
 * deno run -A bench/mcp_cpu_ab.ts /tmp/before .     # two checkouts, interleaved
 * WITH_FS=1 deno run -A bench/mcp_cpu_ab.ts         # and server-filesystem (npx)
 * PING=1 ROUNDS=20 deno run -A bench/mcp_cpu_ab.ts  # the protocol floor: `ping`
 * ```
 *
 * Not part of `deno task bench` (no goal reads it).
 *
 * @module
 */

import { type RawRpc, rawRpc } from "./raw_rpc_client.ts";
import { treeCpuMs } from "./proc_cpu.ts";
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
  cpuMs: number;
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
    return await measure(servers, opts.rounds ?? 10, opts.perRound ?? 200);
  } finally {
    for (const s of servers) await s.rpc.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

function server(name: string, rpc: RawRpc, args: unknown, ping: boolean): Server {
  const call = ping ? () => rpc.call("ping", {}) : () => rpc.call("tools/call", args);
  return { name, rpc, call, cpuMs: 0 };
}

async function measure(servers: Server[], rounds: number, per: number): Promise<string[]> {
  for (const s of servers) for (let i = 0; i < 1500; i++) await s.call(); // JIT warm-up
  await new Promise((r) => setTimeout(r, 1000)); // start-up and warm-up work settles
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 === 0 ? servers : [...servers].reverse()) {
      const before = treeCpuMs(s.rpc.pid);
      for (let i = 0; i < per; i++) await s.call();
      s.cpuMs += treeCpuMs(s.rpc.pid) - before;
    }
  }
  return servers.map((s) => `${s.name}: ${(s.cpuMs * 1000 / (rounds * per)).toFixed(0)} µs/call`);
}

if (import.meta.main) {
  const lines = await cpuPerCall({
    checkouts: Deno.args.length > 0 ? Deno.args.map((a) => Deno.realPathSync(a)) : undefined,
    withFs: Deno.env.get("WITH_FS") === "1",
    ping: Deno.env.get("PING") === "1",
    rounds: Number(Deno.env.get("ROUNDS") ?? 10),
  });
  for (const line of lines) console.log(line);
}
