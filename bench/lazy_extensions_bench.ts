/**
 * Lazy extensions (issue 18): `toolhost serve` start → first `tools/list` answered, for an
 * eval admitting 3 extensions (each the fixture MCP server, a `deno run` process), with a
 * current `toolhost.lock` (lazy: the tools are listed from the lock, no server starts) and
 * without one (eager: every server is started and listed first). Runs alternate so the
 * machine's noise hits both alike; the line reports medians and the eager/lazy ratio.
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

function toml(): string {
  const server = `${REPO}/tests/fixtures/mcp/fixture_server.ts`;
  const ext = (n: string) =>
    `\n[extensions.${n}]\ncommand = "deno"\n` +
    `args = ["run", "-A", "--config", ${JSON.stringify(`${REPO}/deno.json`)}, ${
      JSON.stringify(server)
    }]\ntimeout_ms = 60000\n`;
  return `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.bench]\naudience = "agent"\n` +
    `extensions = ${JSON.stringify(NAMES)}\n` + NAMES.map(ext).join("");
}

/** ms from spawning `serve` to the first `tools/list` response (checked to list all 3). */
async function startToList(dir: string): Promise<number> {
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
    for (const n of NAMES) {
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
  try {
    for (const dir of [eager, lazy]) {
      Deno.mkdirSync(join(dir, "app"));
      Deno.writeTextFileSync(join(dir, "toolhost.toml"), toml());
    }
    const ws = await loadWorkspace(lazy);
    await writeLockFile(ws, await buildLock(ws, { stateDir: `${lazy}/.state` }));
    await startToList(eager); // warm-up (module cache)
    const times = { eager: [] as number[], lazy: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      times.eager.push(await startToList(eager));
      times.lazy.push(await startToList(lazy));
    }
    const e = median(times.eager);
    const l = median(times.lazy);
    return [
      `serve start → first tools/list, 3 extensions (median of ${RUNS} alternating runs):`,
      `  eager (no lock: every server started)   ${e.toFixed(0).padStart(6)} ms`,
      `  lazy (current toolhost.lock)            ${l.toFixed(0).padStart(6)} ms`,
      `  ratio eager/lazy                        ${(e / l).toFixed(2)}x`,
    ];
  } finally {
    rmSync(eager, { recursive: true, force: true });
    rmSync(lazy, { recursive: true, force: true });
  }
}

if (import.meta.main) { for (const line of await benchLazyExtensions()) console.log(line); }
