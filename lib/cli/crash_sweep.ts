/**
 * `serve` sweeps its state directory once, on its own, and so does each `tools call` (and
 * `tools check --execute`), alongside its call: an MCP client starts `serve` anew on every
 * launch, an agent harness may SIGKILL a `tools call` on its timeout, and a toolhost killed
 * so (or crashed) leaves its unconfined calls' process groups running — journaled, so a sweep can end them, but nothing else
 * would sweep a workspace without tool sessions (their start sweeps first) until someone
 * ran `toolhost sweep`. The sweep is the same fail-closed one (lib/sessions/sweep.ts):
 * it signals only groups verified as toolhost's own (their secret tag), leaves folders of
 * live owners — another `serve` on the same workspace included — alone, and is shared
 * with the sweeps of sessions starting meanwhile.
 *
 * It starts after the first listing is answered (or as the first call begins), off the
 * path of start-up and of that answer (its modules load then), and reports on stderr only when it cleaned or
 * could not clean something.
 *
 * @module
 */

import { setImmediate } from "node:timers";
import type { ToolSource } from "../mcp/tool_source.ts";

/** Lines for `log` describing a sweep report, when it did or found anything. */
function reportLines(r: {
  swept: number;
  calls: number;
  artifacts: number;
  refused: number;
  failed: number;
  problems: string[];
}): string[] {
  if (r.swept + r.calls + r.artifacts + r.refused + r.failed === 0) return [];
  return [
    `swept ${r.swept} stale session(s), ${r.calls} stale call(s) and ${r.artifacts} stale ` +
    `artifact store(s) left by an ended toolhost; ` +
    `${r.refused} refused (identity not verifiable, nothing signalled); ${r.failed} failed`,
    ...r.problems.map((p) => `  ${p}`),
  ];
}

/**
 * A trigger that starts the state directory's crash sweep once per process (later calls
 * do nothing), and a promise of its end (resolved at once if it never started).
 *
 * @example
 * ```ts
 * import { crashSweep } from "./crash_sweep.ts";
 * const sweep = crashSweep("/tmp/toolhost-doc-state", (l) => console.error(l));
 * sweep.start();
 * await sweep.settled();
 * ```
 */
export function crashSweep(
  stateDir: string,
  log: (line: string) => void,
): { start: () => void; settled: () => Promise<void> } {
  let running: Promise<void> | undefined;
  const start = () => {
    running ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => import("../sessions/shared_sweep.ts"))
      .then((m) => m.sharedSweep(stateDir))
      .then((report) => reportLines(report).forEach(log))
      .catch(() => log("the sweep of stale calls and sessions failed; run `toolhost sweep`"));
  };
  return { start, settled: () => running ?? Promise.resolve() };
}

/**
 * `source`, starting `sweep` once its first listing has been answered or its first call
 * has begun.
 *
 * @example
 * ```ts
 * import { crashSweep, sweepingSource } from "./crash_sweep.ts";
 * // const source = sweepingSource(evalToolSource(reg), crashSweep(stateDir, log));
 * ```
 */
export function sweepingSource(source: ToolSource, sweep: { start: () => void }): ToolSource {
  return {
    ...source,
    list: async () => {
      const tools = await source.list();
      sweep.start();
      return tools;
    },
    call: (name, args, opts) => {
      sweep.start(); // a call may never end: the sweep need not wait for it
      return source.call(name, args, opts);
    },
  };
}
