/**
 * Lazy extensions (issue 18): `toolhost serve` start → first `tools/list` answered, for an
 * eval admitting 3 extensions (each the fixture MCP server, a `deno run` process), with a
 * current `toolhost.lock` (lazy: the tools are listed from the lock, no server starts) and
 * without one (eager: every server is started and listed first), and — as the floor both
 * stand on — the same eval without extensions (serve's own start: Deno loading the CLI).
 * Runs alternate so the machine's noise hits all alike; the lines report medians, the
 * eager/lazy ratio and the ratio of the time the extensions add (above the floor).
 *
 * Run alone: `deno run -A bench/lazy_extensions_bench.ts`.
 *
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildLock } from "../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../lib/lock/lock_file.ts";
import { loadWorkspace } from "../lib/workspace/load_workspace.ts";
import { rawRpc } from "./raw_rpc_client.ts";

const REPO = fileURLToPath(new URL("../", import.meta.url)).replace(/\/$/, "");
const QUICK = Deno.env.get("BENCH_QUICK") === "1";
const RUNS = QUICK ? 3 : 5;
const NAMES = ["ea", "eb", "ec"];

function toml(names: readonly string[] = NAMES): string {
  const server = `${REPO}/tests/fixtures/mcp/fixture_server.ts`;
  const ext = (n: string) =>
    `\n[extensions.${n}]\ncommand = "deno"\n` +
    `args = ["run", "-A", "--config", ${JSON.stringify(`${REPO}/deno.json`)}, ${
      JSON.stringify(server)
    }]\ntimeout_ms = 60000\n`;
  return `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.bench]\naudience = "agent"\n` +
    `extensions = ${JSON.stringify(names)}\n` + names.map(ext).join("");
}

/** ms from spawning `serve` to the first `tools/list` response (checked to list `names`). */
async function startToList(dir: string, names: readonly string[] = NAMES): Promise<number> {
  const t0 = performance.now();
  const rpc = await rawRpc(Deno.execPath(), [
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
    `${dir}/.state`,
  ]);
  try {
    const line = await rpc.call("tools/list", {});
    const ms = performance.now() - t0;
    for (const n of names) {
      if (!line.includes(`"echo_${n}"`)) throw new Error(`tools/list lacks echo_${n}`);
    }
    return ms;
  } finally {
    await rpc.close();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * The section's lines.
 *
 * @example
 * ```ts
 * import { benchLazyExtensions } from "./lazy_extensions_bench.ts";
 * // for (const line of await benchLazyExtensions()) console.log(line);
 * ```
 */
export async function benchLazyExtensions(): Promise<string[]> {
  // The extensions are `deno` from PATH (a command with `/` must be inside the workspace):
  // this very Deno, for serve and lock building alike.
  Deno.env.set("PATH", `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`);
  const eager = mkdtempSync(join(tmpdir(), "toolhost_lazy_eager_"));
  const lazy = mkdtempSync(join(tmpdir(), "toolhost_lazy_locked_"));
  const none = mkdtempSync(join(tmpdir(), "toolhost_lazy_none_"));
  try {
    for (const dir of [eager, lazy, none]) {
      Deno.mkdirSync(join(dir, "app"));
      Deno.writeTextFileSync(join(dir, "toolhost.toml"), toml(dir === none ? [] : NAMES));
    }
    const ws = await loadWorkspace(lazy);
    await writeLockFile(ws, await buildLock(ws, { stateDir: `${lazy}/.state` }));
    await startToList(eager); // warm-up (module cache)
    const times = { eager: [] as number[], lazy: [] as number[], none: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      times.eager.push(await startToList(eager));
      times.lazy.push(await startToList(lazy));
      times.none.push(await startToList(none, []));
    }
    const e = median(times.eager);
    const l = median(times.lazy);
    const n = median(times.none);
    const added = (x: number) => Math.max(x - n, 1);
    const row = (label: string, ms: number) =>
      `  ${label.padEnd(40)}${ms.toFixed(0).padStart(6)} ms`;
    return [
      `serve start → first tools/list, 3 extensions (median of ${RUNS} alternating runs):`,
      row("eager (no lock: every server started)", e),
      row("lazy (current toolhost.lock)", l),
      row("floor (same eval, no extensions)", n),
      `  ratio eager/lazy                        ${(e / l).toFixed(2)}x`,
      `  ratio of the time extensions add        ${(added(e) / added(l)).toFixed(1)}x ` +
      `(eager +${(e - n).toFixed(0)} ms, lazy +${(l - n).toFixed(0)} ms over the floor)`,
    ];
  } finally {
    rmSync(eager, { recursive: true, force: true });
    rmSync(lazy, { recursive: true, force: true });
    rmSync(none, { recursive: true, force: true });
  }
}

if (import.meta.main) { for (const line of await benchLazyExtensions()) console.log(line); }
