/**
 * Benchmark of the native catalog, in one run:
 *
 * - `files_search` (literal, case-sensitive, in-process as `serve` runs it) over a
 *   generated tree — the built-ins bench tree: 9,000 files, ~60 MiB of mixed text and
 *   binary, hidden files, nested folders (3,000 files / 20 MiB with `BENCH_QUICK=1`) —
 *   against `rg --fixed-strings -j1 --hidden --no-ignore` and `rg --fixed-strings` with its
 *   default threads. Match counts are checked to agree.
 * - `files_edit` round-trip latency on a small file (an edit and its inverse per round):
 *   direct, through `Registry.call` with no plugins, and with `policy` + `audit-log`
 *   enabled (the hook overhead), beside `sed -i` as a process anchor.
 *
 * Run standalone with `deno run -A bench/native_bench.ts`.
 *
 * @module
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { execFileSync } from "node:child_process";
import { runFilesSearch } from "../lib/native/search.ts";
import { runNative } from "../lib/native/run.ts";
import type { NativeEnv } from "../lib/native/context.ts";
import { Registry } from "../lib/registry/registry.ts";
import { loadWorkspace } from "../lib/workspace/load_workspace.ts";
import type { ToolResult } from "../lib/results/types.ts";

import { installDenoHost } from "../cli.ts";
import { generateTree } from "./bench_tree.ts";

const MIB = 1024 * 1024;
const ROUNDS = 5;
const NEEDLE = "needle_token_42";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
}

async function timeMs(f: () => unknown | Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

function has(cmd: string): boolean {
  try {
    execFileSync(cmd, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function nativeEnv(dir: string, stateDir: string): NativeEnv {
  return {
    declaring: { id: "bench", kind: "folder", physicalPath: dir, cwd: dir },
    descendants: new Map(),
    workspace: { root: dir, manifestPath: "", artifacts: new Map(), evals: new Map(), extra: {} },
    stateDir,
    baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    grantedEnv: {},
  };
}

function matchCount(r: ToolResult): number {
  const data = (r.content[0] as { data: { matches: unknown[] } }).data;
  return data.matches.length;
}

async function benchSearch(tmp: string, quick: boolean): Promise<string[]> {
  const tree = path.join(tmp, "tree");
  const info = generateTree(tree, quick ? 3_000 : 9_000, (quick ? 20 : 60) * MIB);
  const env = nativeEnv(tree, path.join(tmp, "state"));
  const args = { query: NEEDLE, maxMatches: 2000 };
  const ours = await runFilesSearch(args, env);
  const n = matchCount(ours);
  const lines = [
    `tree: ${info.files} files, ${(info.bytes / MIB).toFixed(1)} MiB; ${n} matches of "${NEEDLE}"`,
  ];
  const t: number[] = [];
  for (let i = 0; i < ROUNDS; i++) t.push(await timeMs(() => runFilesSearch(args, env)));
  const mine = median(t);
  lines.push(
    `files_search (in-process)          ${mine.toFixed(1)} ms  ${
      (info.bytes / MIB / (mine / 1000)).toFixed(0)
    } MiB/s`,
  );
  if (!has("rg")) return [...lines, "rg not found: anchors skipped (apt-get install ripgrep)"];
  for (
    const [label, extra] of [["rg --fixed-strings -j1", ["-j1"]], [
      "rg --fixed-strings (threads)",
      [],
    ]] as const
  ) {
    const rgArgs = [
      "--fixed-strings",
      "--hidden",
      "--no-ignore",
      "--count-matches",
      ...extra,
      NEEDLE,
      ".",
    ];
    const out = execFileSync("rg", rgArgs, { cwd: tree, encoding: "utf8" });
    const rgCount = out.trim().split("\n").reduce((s, l) => s + Number(l.split(":").pop()), 0);
    const r: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      r.push(await timeMs(() => execFileSync("rg", rgArgs, { cwd: tree, stdio: "ignore" })));
    }
    const m = median(r);
    lines.push(
      `${label.padEnd(34)} ${m.toFixed(1)} ms  ratio files_search/anchor ${
        (mine / m).toFixed(2)
      }x` +
        (rgCount === n ? "" : `  (counts differ: rg ${rgCount})`),
    );
  }
  return lines;
}

const EDIT_TOML = (plugins: boolean) =>
  `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.edit]
builtin = "files_edit"
${
    plugins
      ? '\n[plugins]\nenable = ["policy", "audit-log"]\n\n[plugins.policy]\n[[plugins.policy.rules]]\neffect = "deny"\ntools = ["shell_*"]\n'
      : ""
  }`;

async function editRounds(
  f: (i: number) => Promise<ToolResult> | void,
  rounds: number,
): Promise<number[]> {
  const xs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const r = await f(i);
    if (r && r.isError) throw new Error("files_edit failed during the benchmark");
    xs.push((performance.now() - t0) * 1000);
  }
  return xs;
}

async function benchEdit(tmp: string, quick: boolean): Promise<string[]> {
  const rounds = quick ? 200 : 1000;
  const lines: string[] = [];
  const fmt = (label: string, xs: number[]) =>
    `${label.padEnd(48)} median ${median(xs).toFixed(0)} µs  p95 ${
      percentile(xs, 0.95).toFixed(0)
    } µs`;
  const swap = (i: number) => (i % 2 === 0 ? ["alpha", "omega"] : ["omega", "alpha"]);
  const content = "the alpha value\n" + "line of filler text\n".repeat(40);
  const direct = path.join(tmp, "direct");
  fs.mkdirSync(direct);
  fs.writeFileSync(path.join(direct, "f.txt"), content);
  const env = nativeEnv(direct, path.join(tmp, "state"));
  const run = (i: number) => {
    const [o, n] = swap(i);
    return runNative("files_edit", { path: "f.txt", oldText: o, newText: n }, env);
  };
  lines.push(fmt("files_edit direct (runNative)", await editRounds(run, rounds)));
  for (const plugins of [false, true]) {
    const root = path.join(tmp, `ws${plugins ? "p" : ""}`);
    fs.mkdirSync(path.join(root, "app"), { recursive: true });
    fs.writeFileSync(path.join(root, "toolhost.toml"), EDIT_TOML(plugins));
    fs.copyFileSync(path.join(direct, "f.txt"), path.join(root, "app", "f.txt"));
    const reg = await Registry.open(await loadWorkspace(root), "app/review", {
      stateDir: path.join(root, ".state"),
    });
    try {
      const xs = await editRounds((i) => {
        const [o, n] = swap(i);
        return reg.call("edit_app", { path: "f.txt", oldText: o, newText: n });
      }, rounds);
      lines.push(fmt(`files_edit via Registry.call${plugins ? " + policy, audit-log" : ""}`, xs));
    } finally {
      await reg.close();
    }
  }
  const sedFile = path.join(direct, "f.txt");
  const sed = await editRounds((i) => {
    const [o, n] = swap(i);
    execFileSync("sed", ["-i", `s/${o}/${n}/`, sedFile]);
  }, Math.min(rounds, 200));
  lines.push(fmt("anchor: sed -i (one process per edit)", sed));
  return lines;
}

/**
 * Run the native benchmarks; returns the report lines.
 *
 * @example
 * ```ts
 * import { benchNative } from "./native_bench.ts";
 * for (const line of await benchNative()) console.log(line);
 * ```
 */
export async function benchNative(): Promise<string[]> {
  installDenoHost(); // as cli.ts does: native tools list and size files with Deno's own calls
  const quick = process.env.BENCH_QUICK === "1";
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-native-bench-"));
  try {
    return [
      "-- files_search vs ripgrep (median of 5) --",
      ...await benchSearch(tmp, quick),
      "-- files_edit round trip (edit + inverse edit alternate) --",
      ...await benchEdit(tmp, quick),
    ];
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  for (const line of await benchNative()) console.log(line);
}
