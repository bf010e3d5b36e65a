/**
 * `serve`'s own instructions per `read` call, counted by callgrind: a checkout's
 * `cli.ts serve` runs under `valgrind --tool=callgrind`, is warmed up with `WARM` 4 KiB
 * reads through the raw JSON-RPC client (raw_rpc_client.ts), then its counters are zeroed
 * (`callgrind_control -z`), `CALLS` more reads are made and the counters dumped
 * (`callgrind_control -d`). Instruction counts do not move with the machine's load, so
 * one run compares two checkouts where CPU time cannot. V8's JIT code is not named in the
 * dump; for where the time goes, use a V8 profile.
 *
 * ```sh
 * deno run -A bench/mcp_instr.ts /tmp/before .   # Ir per call of each checkout
 * WARM=600 CALLS=200 PING=1 deno run -A bench/mcp_instr.ts
 * ```
 *
 * Not part of `deno task bench` (no goal reads it; valgrind is slow).
 *
 * @module
 */

import { rawRpc } from "./raw_rpc_client.ts";
import { sampleText } from "./mcp_throughput.ts";

const HERE = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.bench]
audience = "agent"

[artifacts.app.views.agent_tools.read]
builtin = "read"
`;

/** Options of {@link instructionsPerCall}. */
export interface InstrOptions {
  /** Calls before counting. Default 600. */
  warm?: number;
  /** Calls counted. Default 200. */
  calls?: number;
  /** `ping` instead of a 4 KiB `read`. Default false. */
  ping?: boolean;
  /** Copy the counted dumps to `<keep>.<n>` (for `callgrind_annotate`). Default none. */
  keep?: string;
}

/**
 * Instructions (callgrind's Ir) per call of `checkout`'s `serve`, all threads.
 *
 * @example
 * ```ts
 * import { instructionsPerCall } from "./mcp_instr.ts";
 * // console.log(await instructionsPerCall("."));
 * ```
 */
export async function instructionsPerCall(
  checkout: string,
  opts: InstrOptions = {},
): Promise<{ all: number; main: number }> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "toolhost_instr_" }));
  try {
    await Deno.mkdir(`${dir}/app`, { recursive: true });
    await Deno.writeTextFile(`${dir}/toolhost.toml`, TOML);
    await Deno.writeTextFile(`${dir}/app/file_4096.txt`, sampleText(4096));
    const out = `${dir}/callgrind.out`;
    const rpc = await rawRpc("valgrind", [
      "--tool=callgrind",
      "--smc-check=all",
      "--instr-atstart=no", // start-up and warm-up run uninstrumented (much faster)
      "--separate-threads=yes", // the main thread apart from V8's compiler and GC threads
      `--callgrind-out-file=${out}.%p`,
      Deno.execPath(),
      ...["run", "-A", "--config", `${checkout}/deno.json`, `${checkout}/cli.ts`, "serve"],
      ...["--eval", "app/bench", "--repo", dir, "--state-dir", `${dir}/.state`],
    ]);
    try {
      const args = { name: "read_app", arguments: { path: "file_4096.txt" } };
      const call = opts.ping ? () => rpc.call("ping", {}) : () => rpc.call("tools/call", args);
      for (let i = 0; i < (opts.warm ?? 600); i++) await call();
      await control("-i on", rpc.pid);
      await control("-z", rpc.pid);
      const calls = opts.calls ?? 200;
      for (let i = 0; i < calls; i++) await call();
      await control("-d", rpc.pid);
      const keep = opts.keep;
      if (keep) {
        for (const e of Deno.readDirSync(dir)) {
          if (e.name.startsWith(`callgrind.out.${rpc.pid}.`)) {
            Deno.copyFileSync(`${dir}/${e.name}`, `${keep}.${e.name.split(".").slice(-1)[0]}`);
          }
        }
      }
      return { all: totalIr(dir, rpc.pid) / calls, main: totalIr(dir, rpc.pid, "-01") / calls };
    } finally {
      await rpc.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function control(flag: string, pid: number): Promise<void> {
  const args = [...flag.split(" "), String(pid)];
  const r = await new Deno.Command("callgrind_control", { args }).output();
  if (!r.success) throw new Error(`callgrind_control ${flag} failed`);
}

/**
 * Sum of the `summary:` / `totals:` lines of the dumps written after the zeroing (of
 * every thread, or of those whose file name ends with `thread`, e.g. `-01`: the main one).
 */
function totalIr(dir: string, pid: number, thread = ""): number {
  let total = 0;
  for (const e of Deno.readDirSync(dir)) {
    if (!e.name.startsWith(`callgrind.out.${pid}.`)) continue; // numbered dumps only
    if (!e.name.endsWith(thread)) continue;
    const text = Deno.readTextFileSync(`${dir}/${e.name}`);
    const m = /^(?:summary|totals): (\d+)/m.exec(text);
    if (m) total += Number(m[1]);
  }
  return total;
}

if (import.meta.main) {
  const checkouts = Deno.args.length > 0 ? Deno.args.map((a) => Deno.realPathSync(a)) : [HERE];
  const opts = {
    warm: Number(Deno.env.get("WARM") ?? 600),
    calls: Number(Deno.env.get("CALLS") ?? 200),
    ping: Deno.env.get("PING") === "1",
    keep: Deno.env.get("KEEP"),
  };
  for (const c of checkouts) {
    const ir = await instructionsPerCall(c, opts);
    console.log(`${c}: ${Math.round(ir.main)} Ir/call main thread, ${Math.round(ir.all)} all`);
  }
}
