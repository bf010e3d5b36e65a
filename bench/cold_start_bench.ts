/**
 * Cold start: wall time of one whole process for `toolhost --version` and for
 * `toolhost tools check --repo examples`, for each way toolhost ships — the Node
 * single-executable (`deno task build:sea`), the `deno compile` binary (when it can be
 * built here), `deno run -A cli.ts`, and `node dist/npm/bin/toolhost.js` — as medians
 * and ratios to the SEA binary in one run; plus the binaries' and the npm package's sizes.
 *
 * Run alone: `deno run -A bench/cold_start_bench.ts`. BENCH_RUNS sets the runs per cell
 * (default 15, 5 with BENCH_QUICK=1).
 *
 * @module
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { buildSea, ROOT } from "../scripts/build_sea.ts";
import { compileBinary } from "../scripts/compile.ts";
import { packReport } from "../scripts/npm_consumer_test.ts";

/** One way of starting the CLI. */
interface Form {
  name: string;
  argv: string[];
}

const MIB = 1024 * 1024;

async function once(argv: string[]): Promise<number> {
  const t = performance.now();
  const out = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: ROOT,
    stdout: "null",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const ms = performance.now() - t;
  if (!out.success) throw new Error(`${argv.slice(0, 3).join(" ")} … exited ${out.code}`);
  return ms;
}

async function median(argv: string[], runs: number): Promise<number> {
  await once(argv); // warm the page cache
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await once(argv));
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function forms(lines: string[]): Promise<Form[]> {
  const sea = await buildSea();
  const list: Form[] = [{ name: "SEA binary", argv: [sea.binary] }];
  lines.push(
    `size: SEA binary ${(sea.bytes / MIB).toFixed(1)} MiB (JS bundle ${
      (sea.bundleBytes / MIB).toFixed(2)
    } MiB)`,
  );
  const compiled = await compileBinary({ timeoutMs: 180_000 });
  if (compiled.ok) {
    list.push({ name: "deno compile binary", argv: [compiled.binary] });
    lines.push(`size: deno compile binary ${(compiled.bytes / MIB).toFixed(1)} MiB`);
  } else {
    lines.push(`deno compile binary: not measured (${compiled.reason})`);
  }
  list.push({ name: "deno run cli.ts", argv: [Deno.execPath(), "run", "-A", "--quiet", "cli.ts"] });
  const npmBin = join(ROOT, "dist", "npm", "bin", "toolhost.js");
  if (!existsSync(npmBin)) {
    await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/build_npm.ts", "--no-test"],
      cwd: ROOT,
      stdout: "null",
    }).output();
  }
  if (existsSync(npmBin)) {
    list.push({ name: "node dist/npm/bin", argv: ["node", npmBin] });
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
  const workloads = [
    { name: "--version", args: ["--version"] },
    { name: "tools check (examples)", args: ["tools", "check", "--repo", "examples"] },
  ];
  for (const w of workloads) {
    const base = await median([...all[0].argv, ...w.args], runs);
    lines.push(`${w.name}: ${all[0].name} ${base.toFixed(0)} ms (median of ${runs})`);
    for (const f of all.slice(1)) {
      const ms = await median([...f.argv, ...w.args], runs);
      lines.push(
        `${w.name}: ${f.name} ${ms.toFixed(0)} ms = ${(ms / base).toFixed(2)}x the SEA binary`,
      );
    }
  }
  return lines;
}

if (import.meta.main) {
  for (const line of await benchColdStart()) console.log(line);
}
