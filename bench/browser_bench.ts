/**
 * The browser session (examples/browser): start-to-ready and a `screenshot` call's
 * latency, through the real registry.
 *
 * 1. Start-to-ready: a fresh registry's first `open_url` (session start: the harness,
 *    the local app, Chromium, the DevTools attach — plus one navigation) minus a
 *    steady-state `open_url` of the same page.
 * 2. `screenshot` (800×600 PNG) and `snapshot` round trips in a running session; a
 *    `console_logs` call (no browser work) is the bound-call floor.
 *
 * Medians of ROUNDS rounds. SKIPs with the reason when Chromium is missing.
 * Run alone: `deno run -A bench/browser_bench.ts`. BENCH_QUICK=1 runs fewer rounds.
 * Playwright MCP is not compared: it cannot be installed and run offline here.
 *
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromiumMissing, openBrowserRegistry } from "../tests/browser/_helpers.ts";

const ROUNDS = Deno.env.get("BENCH_QUICK") ? 2 : 5;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timed(f: () => Promise<{ isError?: boolean }>): Promise<number> {
  const t0 = performance.now();
  const r = await f();
  if (r.isError) throw new Error("a browser call failed");
  return performance.now() - t0;
}

const missing = chromiumMissing();
if (missing !== undefined) {
  console.log(`SKIP browser session bench: ${missing}`);
} else {
  const start: number[] = [];
  const nav: number[] = [];
  const shot: number[] = [];
  const snap: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const state = mkdtempSync(join(tmpdir(), "toolhost-browser-bench-"));
    const reg = await openBrowserRegistry(state);
    try {
      const first = await timed(() => reg.call("open_url_site", { url: "/" }));
      const steady = await timed(() => reg.call("open_url_site", { url: "/" }));
      start.push(first - steady);
      nav.push(steady);
      shot.push(await timed(() => reg.call("screenshot_site", {})));
      snap.push(await timed(() => reg.call("snapshot_site", {})));
      floor.push(await timed(() => reg.call("console_logs_site", {})));
    } finally {
      await reg.close();
      rmSync(state, { recursive: true, force: true });
    }
  }
  const ms = (xs: number[]) => `${median(xs).toFixed(0)} ms`;
  console.log(
    `browser session, medians of ${ROUNDS} (${Deno.build.os}, ${navigator.hardwareConcurrency} cores)`,
  );
  console.log(`  start-to-ready (first open_url − steady open_url)  ${ms(start)}`);
  console.log(`  open_url, running session                          ${ms(nav)}`);
  console.log(`  screenshot (800×600 PNG)                           ${ms(shot)}`);
  console.log(`  snapshot                                           ${ms(snap)}`);
  console.log(`  console_logs (bound-call floor)                    ${ms(floor)}`);
}
