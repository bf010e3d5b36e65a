/**
 * `deno task bench`: install the anchor tools if needed, print machine info, then run each
 * benchmark section present in bench/ and print its ratio lines.
 *
 * Usage: `deno run -A bench/run.ts [--only NAME] [--no-install] [--check] [--help]`
 * (NAME: pins, process, builtins, odek, ..., trust). Env: BENCH_QUICK=1 for smaller inputs.
 * Every run ends with the goals of the sections it ran (`met` / `NOT met` / `SKIP`);
 * `--check` also exits 1 when a measured goal is not met.
 *
 * @module
 */

/** A benchmark section: a module in bench/ and the function it exports. */
interface Section {
  name: string;
  file: string;
  fn: string;
}

import { goalSummary } from "./goals.ts";

/** Every section `deno task bench` knows, in run order. */
export const SECTIONS: readonly Section[] = [
  { name: "pins", file: "pins_bench.ts", fn: "benchPins" },
  { name: "process", file: "process_bench.ts", fn: "benchProcess" },
  { name: "builtins", file: "builtins_bench.ts", fn: "benchBuiltins" },
  { name: "odek", file: "odek_bench.ts", fn: "benchOdek" },
  { name: "sessions", file: "sessions_bench.ts", fn: "benchSessions" },
  { name: "mcp", file: "mcp_bench.ts", fn: "benchMcp" },
  { name: "native", file: "native_bench.ts", fn: "benchNative" },
  { name: "cold-start", file: "cold_start_bench.ts", fn: "benchColdStart" },
  { name: "trust", file: "trust_bench.ts", fn: "benchTrust" }, // issue 10
  { name: "sweep", file: "sweep_bench.ts", fn: "benchSweep" }, // issue 16
  { name: "lazy-extensions", file: "lazy_extensions_bench.ts", fn: "benchLazyExtensions" }, // 18
  { name: "confine", file: "confine_bench.ts", fn: "benchConfine" }, // issue 15
  { name: "browser", file: "browser_bench.ts", fn: "benchBrowser" }, // issue 21
  { name: "cdp-clients", file: "cdp_client_bench.ts", fn: "benchCdpClients" }, // issue 21
  // Last: its 200 clients leave this process heavy, and the sections after it measured
  // their own anchors inflated (a raw spawn of /bin/true 19.8 ms against 3.5 ms alone).
  { name: "scale-out", file: "scale_out_bench.ts", fn: "benchScaleOut" }, // issue 20
];

/** Command-line options of the runner. */
interface RunOptions {
  only?: string;
  install: boolean;
  check: boolean;
  help?: boolean;
}

/**
 * What `deno task bench --help` prints: the options and every section `--only` takes.
 *
 * @example
 * ```ts
 * import { usage } from "./run.ts";
 * console.log(usage().includes("--only NAME")); // true
 * ```
 */
export function usage(): string {
  return [
    "usage: deno task bench [--only NAME] [--no-install] [--check]",
    "  --only NAME    run one section: " + SECTIONS.map((s) => s.name).join(" | "),
    "  --no-install   do not apt-get missing anchor tools (ripgrep, fd, ...)",
    "  --check        also exit 1 when a measured goal is NOT met",
    "  BENCH_QUICK=1  (environment) smaller inputs, a quicker and rougher run",
    "Ratios against named anchors, measured interleaved in one run; see bench/README.md.",
  ].join("\n");
}

function parseArgs(args: string[]): RunOptions {
  const opts: RunOptions = { install: true, check: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--only" || arg.startsWith("--only=")) {
      opts.only = arg === "--only" ? args[++i] : arg.slice("--only=".length);
      if (!opts.only || !SECTIONS.some((s) => s.name === opts.only)) {
        throw new Error(`--only needs one of: ${SECTIONS.map((s) => s.name).join(", ")}`);
      }
    } else if (arg === "--no-install") {
      opts.install = false;
    } else if (arg === "--check") {
      opts.check = true;
    } else if (arg === "--help" || arg === "-h") {
      opts.help = true;
    } else {
      throw new Error(
        `unknown argument ${JSON.stringify(arg)}; use --only NAME, --no-install, --check or --help`,
      );
    }
  }
  return opts;
}

/** Run a command and return its trimmed stdout, or undefined if it cannot run or fails. */
async function capture(cmd: string, args: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "null" }).output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

/** The first of `names` found on PATH. */
async function which(...names: string[]): Promise<string | undefined> {
  for (const name of names) {
    if (await capture("sh", ["-c", `command -v ${name}`])) return name;
  }
  return undefined;
}

/**
 * Make sure `rg` and `fd`/`fdfind` exist: when one is missing and we are root, run
 * `apt-get update && apt-get install -y ripgrep fd-find` once. Returns a line per anchor.
 *
 * @example
 * ```ts
 * import { ensureAnchors } from "./run.ts";
 * for (const line of await ensureAnchors(false)) console.log(line);
 * ```
 */
export async function ensureAnchors(install: boolean): Promise<string[]> {
  const missing = !(await which("rg")) || !(await which("fdfind", "fd"));
  const lines: string[] = [];
  if (missing && install && Deno.uid() === 0) {
    lines.push("installing anchors: apt-get update && apt-get install -y ripgrep fd-find");
    const ok = await capture("sh", [
      "-c",
      "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ripgrep fd-find",
    ]);
    if (ok === undefined) lines.push("  apt-get failed; anchors that need rg/fd will be skipped");
  } else if (missing) {
    lines.push("anchors missing (not root or --no-install): apt-get install ripgrep fd-find");
  }
  const anchors: [string, string[], string[]][] = [
    ["ripgrep", ["rg"], ["--version"]],
    ["fd", ["fdfind", "fd"], ["--version"]],
    ["sha256sum", ["sha256sum"], ["--version"]],
    ["hyperfine (optional)", ["hyperfine"], ["--version"]],
  ];
  for (const [label, names, args] of anchors) {
    const found = await which(...names);
    const version = found ? (await capture(found, args))?.split("\n")[0] : undefined;
    lines.push(`  ${label.padEnd(22)} ${found ? `${found}: ${version ?? "?"}` : "not found"}`);
  }
  return lines;
}

/**
 * Machine header: date, CPU, nproc, OS, Deno/V8/TypeScript and Node versions.
 *
 * @example
 * ```ts
 * import { machineInfo } from "./run.ts";
 * console.log((await machineInfo()).join("\n"));
 * ```
 */
export async function machineInfo(): Promise<string[]> {
  const cpu = (await Deno.readTextFile("/proc/cpuinfo").catch(() => ""))
    .match(/^model name\s*:\s*(.+)$/m)?.[1] ?? Deno.build.arch;
  const nproc = (await capture("nproc", [])) ?? String(navigator.hardwareConcurrency);
  const os = (await Deno.readTextFile("/etc/os-release").catch(() => ""))
    .match(/^PRETTY_NAME="?([^"\n]+)"?$/m)?.[1] ?? Deno.build.os;
  return [
    `date      ${new Date().toISOString()}`,
    `cpu       ${cpu}, nproc ${nproc}`,
    `os        ${os} (${Deno.build.target})`,
    `deno      ${Deno.version.deno} (v8 ${Deno.version.v8}, typescript ${Deno.version.typescript})`,
    `node      ${(await capture("node", ["--version"])) ?? "not found"}`,
    `mode      ${Deno.env.get("BENCH_QUICK") === "1" ? "quick (BENCH_QUICK=1)" : "full"}`,
  ];
}

/** Run one section; returns false if it failed. */
async function runSection(section: Section): Promise<boolean> {
  const url = new URL(`./${section.file}`, import.meta.url);
  try {
    await Deno.stat(url);
  } catch {
    console.log(`skipped: ${section.name} (not present)`);
    return true;
  }
  console.log(`\n== ${section.name} (bench/${section.file}) ==`);
  const started = performance.now();
  try {
    const mod = await import(url.href) as Record<string, unknown>;
    const fn = mod[section.fn];
    if (typeof fn !== "function") {
      console.log(`skipped: ${section.name} (bench/${section.file} exports no ${section.fn})`);
      return true;
    }
    const lines = await (fn as () => Promise<string[]>)();
    for (const line of lines) console.log(line);
    console.log(`(${section.name}: ${((performance.now() - started) / 1000).toFixed(1)} s)`);
    return true;
  } catch (e) {
    console.log(`failed: ${section.name}: ${e instanceof Error ? e.message : String(e)}`);
    return false;
  }
}

/**
 * Entry point of `deno task bench`.
 *
 * @example
 * ```ts
 * import { main } from "./run.ts";
 * Deno.exit(await main(["--only", "pins"]));
 * ```
 */
export async function main(args: string[]): Promise<number> {
  let opts: RunOptions;
  try {
    opts = parseArgs(args);
  } catch (e) {
    console.error((e as Error).message);
    return 2;
  }
  if (opts.help) {
    console.log(usage());
    return 0;
  }
  console.log("toolhost benchmarks");
  for (const line of await machineInfo()) console.log(line);
  console.log("anchors:");
  for (const line of await ensureAnchors(opts.install)) console.log(line);
  let ok = true;
  const ran = new Set<string>();
  const failed = new Set<string>();
  for (const section of SECTIONS) {
    if (opts.only && section.name !== opts.only) continue;
    ran.add(section.name);
    if (!(await runSection(section))) {
      failed.add(section.name);
      ok = false;
    }
  }
  const goals = goalSummary(ran, failed);
  if (goals.lines.length > 0) {
    console.log(`\n== goals (one run; ratios of medians measured interleaved) ==`);
    for (const line of goals.lines) console.log(line);
  }
  if (opts.check && goals.failed) {
    console.log("check: at least one goal is NOT met");
    return 1;
  }
  return ok ? 0 : 1;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
