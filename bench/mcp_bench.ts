/**
 * MCP benchmarks, one SDK `Client` for everything:
 * - `tools/call` round-trips per second over stdio: toolhost's built-in `read` (through
 *   `toolhost serve`) against the official filesystem server's `read_text_file`
 *   (`npx -y @modelcontextprotocol/server-filesystem@2026.8.31`), same file (64 B, 4 KiB —
 *   the headline — and 16 KiB), same client, sequential calls in interleaved batches
 *   after one shared warm-up (goal: toolhost ≥ 1.0× at every size), and each server's own
 *   CPU per call over those batches, from /proc/<pid>/stat of the server's process tree,
 *   not the client's (goal at 4 KiB: toolhost ≤ 0.5×); see mcp_throughput.ts;
 * - p50/p99 latency of a json command tool: through `serve` (stdio) against
 *   `Registry.call` in-process (`tools call` without process start-up).
 *
 * Run alone: `deno run -A bench/mcp_bench.ts`. BENCH_QUICK=1 for fewer calls.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Registry } from "../lib/registry/registry.ts";
import { type RawRpc, rawRpc } from "./raw_rpc_client.ts";
import { loadWorkspace } from "../lib/workspace/load_workspace.ts";
import { type Connected, FS_SERVER, sampleText, throughput, timeCalls } from "./mcp_throughput.ts";

const REPO = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.bench]
audience = "agent"

[artifacts.app.views.agent_tools.read]
builtin = "read"

[artifacts.app.views.agent_tools.info]
description = "A json tool."
protocol = "json"
command = "tools/info.sh"
args = []
input_schema = { type = "object", properties = { name = { type = "string" } }, required = ["name"], additionalProperties = false }
`;

const INFO_SH = `#!/bin/sh
cat >/dev/null
printf '{"content":[{"type":"json","data":{"greeting":"hello","n":2}}]}\\n'
`;

async function connect(command: string, args: string[]): Promise<Connected> {
  const client = new Client({ name: "toolhost-bench", version: "1" });
  const transport = new StdioClientTransport({ command, args, stderr: "ignore" });
  await client.connect(transport);
  if (transport.pid === null) throw new Error(`${command} did not start`);
  return { client, pid: transport.pid };
}

function pct(ms: number[], p: number): number {
  const s = [...ms].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

async function writeWorkspace(dir: string): Promise<string> {
  await Deno.mkdir(`${dir}/app/tools`, { recursive: true });
  await Deno.writeTextFile(`${dir}/toolhost.toml`, TOML);
  await Deno.writeTextFile(`${dir}/app/tools/info.sh`, INFO_SH, { mode: 0o755 });
  const text = sampleText(4096);
  await Deno.writeTextFile(`${dir}/app/file.txt`, text);
  return text;
}

async function checkSame(th: Client, fs: Client, dir: string, text: string): Promise<void> {
  const a = await th.callTool({ name: "read_app", arguments: { path: "file.txt" } });
  const b = await fs.callTool({
    name: "read_text_file",
    arguments: { path: `${dir}/app/file.txt` },
  });
  if (a.isError || b.isError) throw new Error("a read failed; the benchmark is not comparable");
  const bt = (b.content as { text: string }[])[0].text;
  if (bt !== text) throw new Error("server-filesystem did not return the file");
}

/**
 * Run the MCP benchmarks and return report lines.
 *
 * @example
 * ```ts
 * import { benchMcp } from "./mcp_bench.ts";
 * for (const line of await benchMcp()) console.log(line);
 * ```
 */
export async function benchMcp(): Promise<string[]> {
  const quick = Deno.env.get("BENCH_QUICK") === "1";
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost_bench_mcp_" }));
  const clients: Client[] = [];
  try {
    const text = await writeWorkspace(dir);
    const th = await connect(Deno.execPath(), serveArgv(dir, `${dir}/.state`));
    clients.push(th.client);
    const fs = await connect("npx", ["-y", FS_SERVER, `${dir}/app`]);
    clients.push(fs.client);
    await checkSame(th.client, fs.client, dir, text);
    return [
      ...await throughput(th, fs, dir, quick),
      ...await rawThroughput(dir, quick),
      ...await latency(th.client, dir, quick ? 100 : 300),
    ];
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/**
 * The same 4 KiB read through a raw JSON-RPC client (no SDK parsing or validation: the
 * servers' own cost), sequential and with 16 calls in flight.
 */
async function rawThroughput(dir: string, quick: boolean): Promise<string[]> {
  const servers: RawRpc[] = [];
  try {
    const th = await rawRpc(Deno.execPath(), serveArgv(dir, `${dir}/.state-raw`));
    servers.push(th);
    const fs = await rawRpc("npx", ["-y", FS_SERVER, `${dir}/app`]);
    servers.push(fs);
    const name = "file_4096.txt";
    const readTh = () => th.call("tools/call", { name: "read_app", arguments: { path: name } });
    const readFs = () =>
      fs.call("tools/call", { name: "read_text_file", arguments: { path: `${dir}/app/${name}` } });
    const lines = ["tools/call of the 4096 B file through a raw JSON-RPC client (no SDK):"];
    for (const inFlight of [1, 16]) {
      const batches = quick ? 10 : 30;
      const per = 96; // a whole number of rounds of 1 or 16
      const run = async (f: () => Promise<string>) => {
        for (let i = 0; i < per / inFlight; i++) {
          await Promise.all(Array.from({ length: inFlight }, f));
        }
      };
      for (let i = 0; i < 5; i++) await run(readTh), await run(readFs); // warm-up
      const total = { th: 0, fs: 0 };
      for (let r = 0; r < batches; r++) {
        for (const k of r % 2 === 0 ? (["th", "fs"] as const) : (["fs", "th"] as const)) {
          const t = performance.now();
          await run(k === "th" ? readTh : readFs);
          total[k] += performance.now() - t;
        }
      }
      const rate = (ms: number) => (batches * per) / (ms / 1000);
      lines.push(
        `  ${inFlight === 1 ? "sequential  " : "16 in flight"}: toolhost ${
          rate(total.th).toFixed(0)
        } ` +
          `calls/s, server-filesystem ${rate(total.fs).toFixed(0)} calls/s, ratio ` +
          `${(total.fs / total.th).toFixed(2)}×`,
      );
    }
    return lines;
  } finally {
    for (const s of servers) await s.close();
  }
}

function serveArgv(dir: string, stateDir: string): string[] {
  return [
    "run",
    "-A",
    "--config",
    `${REPO}/deno.json`,
    `${REPO}/cli.ts`,
    "serve",
    "--eval",
    "app/bench",
    "--repo",
    dir,
    "--state-dir",
    stateDir,
  ];
}

async function latency(th: Client, dir: string, m: number): Promise<string[]> {
  const viaServe = await timeCalls(
    () => th.callTool({ name: "info_app", arguments: { name: "x" } }),
    m,
  );
  const reg = await Registry.open(await loadWorkspace(dir), "app/bench", {
    stateDir: `${dir}/.state-inproc`,
  });
  let inproc: number[];
  try {
    await timeCalls(() => reg.call("info_app", { name: "x" }), 10);
    inproc = await timeCalls(() => reg.call("info_app", { name: "x" }), m);
  } finally {
    await reg.close();
  }
  const row = (ms: number[]) =>
    `p50 ${pct(ms, 50).toFixed(2)} ms  p99 ${pct(ms, 99).toFixed(2)} ms`;
  return [
    `json command tool latency, ${m} sequential calls:`,
    `  through serve (stdio)   ${row(viaServe)}`,
    `  in-process Registry     ${row(inproc)}`,
    `  serve overhead at p50   ${(pct(viaServe, 50) - pct(inproc, 50)).toFixed(2)} ms`,
  ];
}

if (import.meta.main) {
  for (const line of await benchMcp()) console.log(line);
}
