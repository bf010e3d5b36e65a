/**
 * Cold start: wall time of one whole process for `toolhost --version`, for
 * `toolhost tools check --repo examples`, and for `toolhost serve` from launch to the
 * first answered `tools/list` (stdio), for each way toolhost ships — the Node
 * single-executable (`deno task build:sea`), the `deno compile` binary (when it can be
 * built here), `deno run -A cli.ts`, and `node dist/npm/bin/toolhost.js` — against the
 * runtimes' own floors, `node -e 0` and `deno eval 0` (this Deno, by its path). Every
 * round runs each anchor and form once, interleaved; figures are medians and ratios of
 * medians from one run. Also the binaries' and the npm package's sizes.
 *
 * Goals (issue 19): SEA `--version` ≤ 1.3× `node -e 0`; the `deno compile` binary's
 * ≤ 1.3× `deno eval 0`; SEA `tools check` and `serve` → first `tools/list` ≤ 2× `node -e 0`.
 *
 * Run alone: `deno run -A bench/cold_start_bench.ts`. BENCH_RUNS sets the rounds (default
 * 15, 5 with BENCH_QUICK=1).
 *
 * @module
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { buildSea, ROOT } from "../scripts/build_sea.ts";
import { compileBinary } from "../scripts/compile.ts";
import { packReport } from "../scripts/npm_consumer_test.ts";
import { reportGoal, skipGoal } from "./goals.ts";

/** One way of starting the CLI. */
interface Form {
  name: string;
  argv: string[];
  /** The runtime whose floor (`node -e 0` / `deno eval 0`) it is compared with. */
  floor: "node" | "deno";
  /** Goal ids of this form: `--version`, `tools check`, `serve`. */
  goals?: { version?: string; check?: string; serve?: string };
}

const MIB = 1024 * 1024;

/**
 * The children's environment: examples/ runs scripts whose `#!` names `deno`, and
 * `tools check` reports them not ready when no `deno` is on PATH; a folder holding only a
 * `deno` link to this Deno goes first on PATH (set up by {@linkcode benchColdStart}).
 */
const CHILD_ENV: Record<string, string> = { NO_COLOR: "1" };

async function once(argv: string[]): Promise<number> {
  const t = performance.now();
  const out = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: ROOT,
    stdout: "null",
    stderr: "null",
    env: CHILD_ENV,
  }).output();
  const ms = performance.now() - t;
  if (!out.success) throw new Error(`${argv.slice(0, 3).join(" ")} … exited ${out.code}`);
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const SERVE_REQUESTS = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "toolhost-bench", version: "1" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
];

/**
 * Launch `argv serve` over stdio on examples/ and time until the answer to `tools/list`
 * (after the initialize handshake) arrives; then close stdin and wait for the exit.
 */
async function serveOnce(argv: string[], stateDir: string): Promise<number> {
  const t = performance.now();
  const child = new Deno.Command(argv[0], {
    args: [
      ...argv.slice(1),
      ...["serve", "--eval", "app/review", "--repo", "examples", "--state-dir", stateDir],
    ],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: CHILD_ENV,
  }).spawn();
  const writer = child.stdin.getWriter();
  const enc = new TextEncoder();
  const send = (m: unknown) => writer.write(enc.encode(JSON.stringify(m) + "\n"));
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  const waitFor = async (id: number) => {
    for (;;) {
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const msg = JSON.parse(line) as { id?: number; error?: unknown };
        if (msg.id === id) {
          if (msg.error) throw new Error(`serve answered request ${id} with an error`);
          return;
        }
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("serve exited before it answered tools/list");
      buf += value;
    }
  };
  try {
    await send(SERVE_REQUESTS[0]);
    await waitFor(1);
    await send(SERVE_REQUESTS[1]);
    await send(SERVE_REQUESTS[2]);
    await waitFor(2);
    return performance.now() - t;
  } finally {
    await writer.close().catch(() => {});
    await reader.cancel().catch(() => {});
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await child.status;
    clearTimeout(timer);
  }
}

async function forms(lines: string[]): Promise<Form[]> {
  const sea = await buildSea();
  const list: Form[] = [{
    name: "SEA binary",
    argv: [sea.binary],
    floor: "node",
    goals: {
      version: "cold-start.version-sea",
      check: "cold-start.check-sea",
      serve: "cold-start.serve-sea",
    },
  }];
  lines.push(
    `size: SEA binary ${(sea.bytes / MIB).toFixed(1)} MiB (JS bundle ${
      (sea.bundleBytes / MIB).toFixed(2)
    } MiB)`,
  );
  const compiled = await compileBinary({ timeoutMs: 180_000 });
  if (compiled.ok) {
    list.push({
      name: "deno compile binary",
      argv: [compiled.binary],
      floor: "deno",
      goals: { version: "cold-start.version-compiled" },
    });
    lines.push(`size: deno compile binary ${(compiled.bytes / MIB).toFixed(1)} MiB`);
  } else {
    lines.push(`deno compile binary: not measured (${compiled.reason})`);
    skipGoal("cold-start.version-compiled", `deno compile binary not built: ${compiled.reason}`);
  }
  list.push({
    name: "deno run cli.ts",
    argv: [Deno.execPath(), "run", "-A", "--quiet", "cli.ts"],
    floor: "deno",
  });
  const npmBin = join(ROOT, "dist", "npm", "bin", "toolhost.js");
  if (!existsSync(npmBin)) {
    await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/build_npm.ts", "--no-test"],
      cwd: ROOT,
      stdout: "null",
    }).output();
  }
  if (existsSync(npmBin)) {
    list.push({ name: "node dist/npm/bin", argv: ["node", npmBin], floor: "node" });
    const { report } = packReport();
    lines.push(
      `size: npm package ${(report.size / 1000).toFixed(1)} kB packed, ${
        (report.unpackedSize / 1000).toFixed(1)
      } kB unpacked, ${report.files.length} files (+ dependencies)`,
    );
  }
  return list;
}

/**
 * Run the cold-start benchmark and return its report lines.
 *
 * @example
 * ```ts
 * import { benchColdStart } from "./cold_start_bench.ts";
 * for (const line of await benchColdStart()) console.log(line);
 * ```
 */
export async function benchColdStart(): Promise<string[]> {
  const quick = Deno.env.get("BENCH_QUICK") === "1";
  const runs = Number(Deno.env.get("BENCH_RUNS") ?? (quick ? "5" : "15"));
  const lines: string[] = [];
  const all = await forms(lines);
  const floors = { node: ["node", "-e", "0"], deno: [Deno.execPath(), "eval", "0"] };
  const workloads = [
    { name: "--version", args: ["--version"] },
    { name: "tools check (examples)", args: ["tools", "check", "--repo", "examples"] },
  ];
  const stateDir = await Deno.makeTempDir({ prefix: "toolhost_bench_cold_" });
  try {
    const bin = `${stateDir}/bin`;
    await Deno.mkdir(bin);
    await Deno.symlink(Deno.execPath(), `${bin}/deno`);
    CHILD_ENV.PATH = `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`;
    // Warm the page cache for every binary and cell, then interleaved rounds.
    const times = new Map<string, number[]>();
    const cells: [string, () => Promise<number>][] = [
      ["floor node", () => once(floors.node)],
      ["floor deno", () => once(floors.deno)],
    ];
    for (const f of all) {
      for (const w of workloads) {
        cells.push([`${f.name}|${w.name}`, () => once([...f.argv, ...w.args])]);
      }
      cells.push([`${f.name}|serve`, () => serveOnce(f.argv, stateDir)]);
    }
    for (const [, run] of cells) await run();
    for (let r = 0; r < runs; r++) {
      for (const [key, run] of cells) {
        const list = times.get(key) ?? [];
        list.push(await run());
        times.set(key, list);
      }
    }
    const med = (key: string) => median(times.get(key)!);
    const node = med("floor node");
    const deno = med("floor deno");
    lines.push(
      `floors (median of ${runs} interleaved rounds): node -e 0 ${node.toFixed(0)} ms, ` +
        `deno eval 0 ${deno.toFixed(0)} ms`,
    );
    // Node reads NODE_EXTRA_CA_CERTS at every start, before any script runs (`node -e 0`
    // and the SEA alike): with a system bundle that is most of `node -e 0`'s instructions
    // here (cachegrind: 499M with it, 85M without), so the ratios depend on it.
    const extraCerts = Deno.env.get("NODE_EXTRA_CA_CERTS");
    lines.push(
      extraCerts
        ? `NODE_EXTRA_CA_CERTS is set (${extraCerts}): every node start, the floor's too, loads it`
        : "NODE_EXTRA_CA_CERTS is not set",
    );
    for (const f of all) {
      const floor = f.floor === "deno" ? deno : node;
      const floorName = f.floor === "deno" ? "deno eval 0" : "node -e 0";
      for (
        const [label, key, goal] of [
          ["--version", "--version", f.goals?.version],
          ["tools check (examples)", "tools check (examples)", f.goals?.check],
          ["serve → first tools/list", "serve", f.goals?.serve],
        ] as const
      ) {
        const ms = med(`${f.name}|${key}`);
        const ratio = ms / floor;
        lines.push(
          `${f.name.padEnd(20)} ${label.padEnd(25)} ${ms.toFixed(0).padStart(5)} ms = ` +
            `${ratio.toFixed(2)}x ${floorName}${goal ? ` (${reportGoal(goal, ratio)})` : ""}`,
        );
      }
    }
  } finally {
    await Deno.remove(stateDir, { recursive: true }).catch(() => {});
  }
  return lines;
}

if (import.meta.main) {
  for (const line of await benchColdStart()) console.log(line);
}
