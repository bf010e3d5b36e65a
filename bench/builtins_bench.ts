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

const ROUNDS = 5;
const MIB = 1024 * 1024;

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ("const let function return if else for while import export from class " +
  "interface type value result error config buffer stream parse render handle request " +
  "response state index count total limit offset token source target module package").split(" ");

function textBlob(rand: () => number, bytes: number, needle: boolean): string {
  const lines: string[] = [];
  let size = 0;
  const needleAt = needle ? Math.floor(rand() * Math.max(1, bytes / 60)) : -1;
  while (size < bytes) {
    const parts: string[] = [];
    for (let i = 3 + Math.floor(rand() * 10); i > 0; i--) {
      parts.push(WORDS[Math.floor(rand() * WORDS.length)]);
    }
    if (lines.length === needleAt) parts.push("fn needle_token_42()");
    const line = "  ".repeat(Math.floor(rand() * 4)) + parts.join(" ") + ";";
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n") + "\n";
}

/** Tree facts. */
interface TreeInfo {
  files: number;
  dirs: number;
  bytes: number;
  binary: number;
  hidden: number;
}

/** Generate 9,000 files / ~60 MiB with under 10,000 entries in all (the traversal bound). */
function generateTree(root: string, files = 9_000, total = 60 * MIB): TreeInfo {
  const rand = rng(42);
  const info: TreeInfo = { files: 0, dirs: 0, bytes: 0, binary: 0, hidden: 0 };
  const dirs = new Set<string>();
  const largeBytes = Math.floor(total / 6 / 4);
  const avg = Math.floor((total - 4 * largeBytes) / (files - 4));
  for (let i = 0; i < files; i++) {
    const top = i % 20 === 0 ? `.hidden${i % 3}` : `pkg${i % 30}`;
    const rel = rand() < 0.5 ? top : `${top}/sub${Math.floor(rand() * 5)}`;
    const dir = path.join(root, rel);
    if (!dirs.has(rel)) fs.mkdirSync(dir, { recursive: true });
    dirs.add(rel).add(top);
    const binary = i % 20 === 7;
    const bytes = i < 4 ? largeBytes : Math.max(64, Math.floor(avg * (0.2 + rand() * 1.6)));
    const file = path.join(dir, `${i % 25 === 0 ? "." : ""}f${i}.${binary ? "bin" : "ts"}`);
    if (binary) {
      const b = new Uint8Array(bytes).map(() => Math.floor(rand() * 256));
      b[bytes >> 1] = 0;
      fs.writeFileSync(file, b);
      info.binary++;
    } else {
      fs.writeFileSync(file, textBlob(rand, bytes, i % 97 === 0));
    }
    if (i % 25 === 0 || top.startsWith(".")) info.hidden++;
    info.files++;
    info.bytes += fs.statSync(file).size;
  }
  info.dirs = dirs.size;
  return info;
}

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

async function benchGrep(root: string, out: string[]): Promise<void> {
  const env = envFor(root);
  const rg = which("rg");
  for (
    const pattern of ["needle_token", "fn\\s+needle_\\w+", "(?i)NEEDLE_TOKEN", "[A-Z]{3}\\d{4}"]
  ) {
    const ours = await timeIt(async () => data(await runBuiltin(decl("grep"), { pattern }, env)));
    if (ours.value.truncated) throw new Error("grep hit a bound on the bench tree");
    let line = `grep \`${pattern}\`: toolhost ${fmt(ours.ms)}`;
    if (rg) {
      const args = ["--hidden", "--no-ignore", "-n", "--", pattern, root];
      const one = await timeIt(() => anchor("rg", ["-j1", ...args]));
      const many = await timeIt(() => anchor("rg", args));
      line += ` | rg -j1 ${fmt(one.ms)} (${ratio(ours.ms, one.ms)})` +
        ` | rg ${fmt(many.ms)} (${ratio(ours.ms, many.ms)})` +
        ` | matches ${ours.value.matches.length} vs ${lines(one.value)}`;
    } else line += " | rg not installed";
    out.push(line);
  }
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
