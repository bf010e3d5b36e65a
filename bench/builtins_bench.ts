/**
 * Benchmark of the in-process built-ins against their anchors, in one run:
 *
 * - grep over a generated tree (9,000 files, ~60 MiB of mixed text and binary, hidden
 *   files, nested folders, a few large files — within the agent-facing bounds) vs
 *   `rg -j1 --hidden --no-ignore` and vs `rg` with its default threads;
 * - glob over the same tree vs `fd --hidden --no-ignore --glob` (`fdfind` on Debian);
 * - a read page deep in a large file vs `sed -n`: 1 GiB at line 5,000,000 with
 *   `BENCH_LARGE=1`, otherwise 128 MiB at line 625,000 (the same relative depth);
 * - with `BENCH_SOURCE_TREE=DIR`, grep over that tree with the bounds lifted (the engine
 *   option only benchmarks use), in MB/s beside `rg -j1`.
 *
 * In-process times call `runBuiltin` as `serve` does; anchors are whole processes. Each
 * figure is the median of several rounds. Run standalone with
 * `deno run -A bench/builtins_bench.ts`.
 *
 * @module
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { runBuiltin } from "../lib/builtins/run.ts";
import { runGrep } from "../lib/builtins/grep.ts";
import type { BuiltinEnv } from "../lib/builtins/context.ts";
import type { BuiltinName, BuiltinToolDecl } from "../lib/workspace/types.ts";
import type { ToolResult } from "../lib/results/types.ts";

import { installDenoHost } from "../cli.ts";
import { generateTree } from "./bench_tree.ts";
import { reportGoal, skipGoal } from "./goals.ts";

const ROUNDS = 5;
const MIB = 1024 * 1024;

/** Write numbered ~200-byte lines until `bytes`; returns the number of lines. */
function generateLines(file: string, bytes: number): number {
  const fd = fs.openSync(file, "w");
  const filler = "x".repeat(180);
  let written = 0;
  let line = 0;
  try {
    while (written < bytes) {
      const parts: string[] = [];
      for (let chunk = 0; chunk < 4 * MIB && written + chunk < bytes;) {
        const s = `${++line} ${filler}\n`;
        parts.push(s);
        chunk += s.length;
      }
      const data = parts.join("");
      fs.writeSync(fd, data);
      written += data.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  return line;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timeIt<T>(fn: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  let value = await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    value = await fn();
    times.push(performance.now() - t0);
  }
  return { ms: median(times), value };
}

/** Run an anchor; its stdout, or null if it is not installed. */
function anchor(cmd: string, args: string[]): string | null {
  try {
    return execFileSync(cmd, args, { maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "ignore"] })
      .toString();
  } catch (e) {
    const err = e as { status?: number; stdout?: Buffer };
    if (err.status === 1 && err.stdout) return err.stdout.toString(); // rg: no match
    return null;
  }
}

function which(...names: string[]): string | null {
  for (const n of names) if (anchor("sh", ["-c", `command -v ${n}`])?.trim()) return n;
  return null;
}

function decl(builtin: BuiltinName): BuiltinToolDecl {
  return { type: "builtin", name: builtin, builtin, description: "bench", keyPath: "bench" };
}

function envFor(root: string): BuiltinEnv {
  return {
    declaring: { id: "bench", kind: "folder", physicalPath: root, cwd: root },
    descendants: new Map(),
    workspace: { root, manifestPath: "", artifacts: new Map(), evals: new Map(), extra: {} },
  };
}

// deno-lint-ignore no-explicit-any
function data(r: ToolResult): any {
  if (r.isError) throw new Error(`built-in failed: ${JSON.stringify(r.content)}`);
  return (r.content[0] as { data: unknown }).data;
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const ratio = (ours: number, theirs: number) => `${(ours / theirs).toFixed(2)}×`;
const lines = (s: string | null) => (s === null ? -1 : s.split("\n").filter(Boolean).length);

/** The literal-free patterns of issue 19's goal (≤ 2x `rg -j1`), by goal id. */
const LITERAL_FREE: Record<string, string> = {
  "[A-Z]+\\d+": "builtins.grep-class-run",
  "\\w+\\d": "builtins.grep-word-digit",
  "[0-9a-f]{8}-[0-9a-f]{4}": "builtins.grep-uuid-prefix",
};

async function benchGrep(root: string, out: string[]): Promise<void> {
  const env = envFor(root);
  const rg = which("rg");
  // Literal patterns first, then those with no literal to search for (class runs).
  const patterns = [
    "needle_token",
    "fn\\s+needle_\\w+",
    "(?i)NEEDLE_TOKEN",
    "[A-Z]{3}\\d{4}",
    ...Object.keys(LITERAL_FREE),
  ];
  for (const pattern of patterns) {
    const goal = LITERAL_FREE[pattern];
    const ours = await timeIt(async () => data(await runBuiltin(decl("grep"), { pattern }, env)));
    if (ours.value.truncated) throw new Error("grep hit a bound on the bench tree");
    let line = `grep \`${pattern}\`: toolhost ${fmt(ours.ms)}`;
    if (rg) {
      const args = ["--hidden", "--no-ignore", "-n", "--", pattern, root];
      // Interleaved with toolhost's runs, so both see the same machine.
      const both = await timeBoth(
        async () => data(await runBuiltin(decl("grep"), { pattern }, env)),
        () => anchor("rg", ["-j1", ...args]),
      );
      const many = await timeIt(() => anchor("rg", args));
      const r = both.a / both.b;
      line = `grep \`${pattern}\`: toolhost ${fmt(both.a)}` +
        ` | rg -j1 ${fmt(both.b)} (${ratio(both.a, both.b)}${
          goal ? `; ${reportGoal(goal, r)}` : ""
        })` +
        ` | rg ${fmt(many.ms)} (${ratio(both.a, many.ms)})` +
        ` | matches ${ours.value.matches.length} vs ${lines(both.bValue)}`;
    } else {
      line += " | rg not installed";
      if (goal) skipGoal(goal, "rg not installed (apt-get install ripgrep)");
    }
    out.push(line);
  }
}

/** Medians of `a` and `b` run alternately ROUNDS times each (after a warm-up of each). */
async function timeBoth<A, B>(
  a: () => A | Promise<A>,
  b: () => B | Promise<B>,
): Promise<{ a: number; b: number; bValue: B }> {
  await a();
  let bValue = await b();
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    let t0 = performance.now();
    await a();
    ta.push(performance.now() - t0);
    t0 = performance.now();
    bValue = await b();
    tb.push(performance.now() - t0);
  }
  return { a: median(ta), b: median(tb), bValue };
}

async function benchGlob(root: string, out: string[]): Promise<void> {
  const env = envFor(root);
  const ours = await timeIt(async () =>
    data(await runBuiltin(decl("glob"), { pattern: "**/*.ts" }, env))
  );
  let line = `glob \`**/*.ts\`: toolhost ${fmt(ours.ms)}`;
  const fd = which("fd", "fdfind");
  if (fd) {
    const args = ["--hidden", "--no-ignore", "--glob", "--type", "f", "*.ts", root];
    const theirs = await timeIt(() => anchor(fd, args));
    const one = await timeIt(() => anchor(fd, ["-j1", ...args]));
    line += ` | ${fd} ${fmt(theirs.ms)} (${ratio(ours.ms, theirs.ms)})` +
      ` | ${fd} -j1 ${fmt(one.ms)} (${ratio(ours.ms, one.ms)})` +
      ` | files ${ours.value.files.length} vs ${lines(theirs.value)}`;
  } else line += " | fd not installed";
  out.push(line);
}

async function benchRead(dir: string, out: string[]): Promise<void> {
  const large = Deno.env.get("BENCH_LARGE") === "1";
  const size = large ? 1024 * MIB : 128 * MIB;
  const target = large ? 5_000_000 : 625_000;
  const file = path.join(dir, "big.txt");
  const total = generateLines(file, size);
  const env = envFor(dir);
  const ours = await timeIt(async () =>
    data(await runBuiltin(decl("read"), { path: "big.txt", line: target }, env))
  );
  const n = ours.value.lines.length;
  const sed = await timeIt(() => anchor("sed", ["-n", `${target},${target + n - 1}p`, file]));
  const same = sed.value === ours.value.lines.map((l: { text: string }) => l.text).join("");
  out.push(
    `read line ${target.toLocaleString("en-US")} of ${size / MIB} MiB ` +
      `(${total.toLocaleString("en-US")} lines; ${
        large ? "BENCH_LARGE=1" : "set BENCH_LARGE=1 for 1 GiB"
      }): ` +
      `toolhost ${fmt(ours.ms)} | sed -n ${fmt(sed.ms)} (${ratio(ours.ms, sed.ms)}) | same ${same}`,
  );
  fs.rmSync(file);
}

async function benchSourceTree(out: string[]): Promise<void> {
  const tree = Deno.env.get("BENCH_SOURCE_TREE");
  if (!tree) {
    out.push(
      "grep past the bounds: skipped (set BENCH_SOURCE_TREE=DIR, e.g. unpacked npm packages)",
    );
    return;
  }
  const bytes = Number(anchor("du", ["-sb", tree])?.split("\t")[0] ?? 0);
  const lifted = {
    maxEntries: 1e9,
    maxDirEntries: 1e9,
    maxFileBytes: 1e12,
    maxTotalBytes: 1e15,
    maxResultBytes: 1e15,
  };
  const pattern = "function\\s+\\w+Handler";
  const ours = await timeIt(async () =>
    data(await runGrep({ pattern }, envFor(fs.realpathSync(tree)), lifted))
  );
  const rg = await timeIt(() =>
    anchor("rg", ["-j1", "--hidden", "--no-ignore", "-n", pattern, tree])
  );
  const mbs = (ms: number) => `${(bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s`;
  out.push(
    `grep past the bounds (${(bytes / 1e6).toFixed(0)} MB): toolhost ${mbs(ours.ms)} | ` +
      `rg -j1 ${mbs(rg.ms)} (${ratio(ours.ms, rg.ms)})`,
  );
}

/**
 * Run the built-ins benchmark and return the lines to print.
 *
 * @example
 * ```ts
 * import { benchBuiltins } from "./builtins_bench.ts";
 * for (const line of await benchBuiltins()) console.log(line);
 * ```
 */
export async function benchBuiltins(): Promise<string[]> {
  installDenoHost(); // as cli.ts does: `serve`'s built-ins list folders with Deno's own call
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-bench-builtins-")));
  const out: string[] = [];
  try {
    const root = path.join(dir, "tree");
    fs.mkdirSync(root);
    const info = generateTree(root);
    out.push(
      `tree: ${info.files.toLocaleString("en-US")} files in ${info.dirs} folders, ` +
        `${(info.bytes / MIB).toFixed(1)} MiB (${info.binary} binary, ${info.hidden} hidden)`,
    );
    await benchGrep(root, out);
    await benchGlob(root, out);
    await benchRead(dir, out);
    await benchSourceTree(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

if (import.meta.main) {
  for (const line of await benchBuiltins()) console.log(line);
}
