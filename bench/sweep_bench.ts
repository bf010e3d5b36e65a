/**
 * Sweeping a forged state directory (issue 16): `sweepSessions` over a session root whose
 * journal holds 100,000 forged lines — admissions of leaderless groups (the read stops at
 * its bound of unfinished groups, the folder is kept) or garbage (skipped and counted) —
 * with wall time, CPU time and the growth of resident memory, next to the load average.
 * The tests assert the outcomes (tests/sessions/bounded_sweep_test.ts); this measures them.
 *
 * Run alone: `deno run -A bench/sweep_bench.ts`.
 *
 * @module
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { currentBootId } from "../lib/process/proc_identity.ts";
import { sweepSessions } from "../lib/sessions/sweep.ts";

const LINES = 100_000;
const TAG = "0123456789abcdef0123456789abcdef";

function forged(kind: "leaderless" | "garbage", i: number): string {
  if (kind === "garbage") return `{garbage ${i}}`;
  const pid = 4_000_000 + i; // below PID_MAX, and no such process
  const record = { pid, pgid: pid, startTime: 1, bootId: currentBootId(), tag: TAG };
  return JSON.stringify({ op: "admit", role: "call", ...record });
}

async function sweepForged(kind: "leaderless" | "garbage"): Promise<string> {
  const state = mkdtempSync(join(tmpdir(), "toolhost_bench_sweep_"));
  try {
    const root = join(state, "sessions", "00000000000000bb");
    mkdirSync(root, { recursive: true });
    writeFileSync(
      join(root, "owner.json"),
      JSON.stringify({ pid: 4_194_305, startTime: 1, bootId: null }),
    );
    const text = Array.from({ length: LINES }, (_, i) => `${forged(kind, i)}\n`).join("");
    writeFileSync(join(root, "journal.jsonl"), text);
    const rss = process.memoryUsage().rss;
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const report = await sweepSessions(state, { graceMs: 0 });
    const wall = performance.now() - t0;
    const used = process.cpuUsage(cpu);
    const grew = Math.max(0, process.memoryUsage().rss - rss) / 1024 / 1024;
    return `  ${kind.padEnd(10)} ${wall.toFixed(0).padStart(5)} ms wall ${
      ((used.user + used.system) / 1000).toFixed(0).padStart(5)
    } ms CPU  RSS +${grew.toFixed(1)} MiB  (failed ${report.failed}, swept ${report.swept})`;
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

/**
 * Run the forged-journal sweep benchmark and return its report lines.
 *
 * @example
 * ```ts
 * import { benchSweep } from "./sweep_bench.ts";
 * for (const line of await benchSweep()) console.log(line);
 * ```
 */
export async function benchSweep(): Promise<string[]> {
  const load = Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
  return [
    `sweep of one session root with a forged journal of ${LINES} lines (load average ${load}):`,
    await sweepForged("leaderless"),
    await sweepForged("garbage"),
  ];
}

if (import.meta.main) {
  for (const line of await benchSweep()) console.log(line);
}
