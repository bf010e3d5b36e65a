/**
 * Scale-out load test (issue 20): MCP clients through HAProxy (`docs/haproxy.cfg`) across
 * `serve --http` replicas on loopback, each client initializing and making a fixed number
 * of calls cycling a built-in (`read`), a json command tool and a session-bound tool.
 * In the main run one replica gets SIGTERM (graceful drain) and another SIGKILL a third of
 * the way in; clients whose session is lost (404 / connection error) initialize again
 * through the balancer and finish (a client whose call's event stream is cut closes and
 * initializes again at once, instead of waiting for the SDK's 60 s request timeout). Then `toolhost sweep` cleans what the SIGKILLed replica
 * left and a `/proc` scan counts processes left. A second pair of runs without kills
 * (1 replica vs 3) gives the scale-out ratio.
 *
 * Bounded: clients, calls and a wall-clock cap per run (`SCALE_MAX_MS`, default 150 s).
 * Loopback only. Usage: `deno run -A bench/scale_out_bench.ts` or `deno task bench --only
 * scale-out`. Env: `SCALE_CLIENTS` (200), `SCALE_CALLS` (20); BENCH_QUICK=1 → 40 × 10;
 * `SCALE_RATIO=0` skips the 1-vs-3 runs.
 * Standalone, it exits 1 when a client did not finish, a call returned an error result, or
 * a process was left.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { tempWorkspace } from "../tests/helpers/workspace.ts";
import { serveArgs } from "../tests/mcp/_helpers.ts";
import { type Balancer, haproxyMissing, startHaproxy } from "../tests/mcp/_haproxy.ts";

const QUICK = Deno.env.get("BENCH_QUICK") === "1";
const CLIENTS = Number(Deno.env.get("SCALE_CLIENTS") ?? (QUICK ? 40 : 200));
const CALLS = Number(Deno.env.get("SCALE_CALLS") ?? (QUICK ? 10 : 20));
const MAX_MS = Number(Deno.env.get("SCALE_MAX_MS") ?? 150_000);
const RATIO = Deno.env.get("SCALE_RATIO") !== "0";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.read]
builtin = "read"

[artifacts.app.views.agent_tools.info]
description = "Info."
protocol = "json"
command = "tools/info.sh"
args = []

[artifacts.app.views.agent_sessions.harness]
start = { command = "tools/harness.sh", args = ["start"] }
stop = { command = "tools/harness.sh", args = ["stop"] }

[artifacts.app.views.agent_tools.count]
session = "harness"
description = "Count calls in this session."
protocol = "json"
command = "tools/harness.sh"
args = ["act"]
`;

// Tools as cheap as a tool can be, so the figures are toolhost's cost, not the tools': every
// process start costs ~6 ms of CPU on the 2-core bench VM, so nothing forks beyond `sh`
// itself (stdin is not read: toolhost tolerates a tool that ignores its request).
const INFO_SH = `#!/bin/sh
printf '{"content":[{"type":"json","data":{"greeting":"hello","n":2}}]}\\n'
`;
const HARNESS_SH = `#!/bin/sh
case "$1" in
  start) echo 0 > "$ARTIFACTIZE_SESSION_DIR/count"; echo ready; exec sleep 300 ;;
  act)
    read -r n < "$ARTIFACTIZE_SESSION_DIR/count"; n=$((n + 1))
    echo "$n" > "$ARTIFACTIZE_SESSION_DIR/count"
    printf '{"content":[{"type":"json","data":{"count":%s}}]}\\n' "$n" ;;
  stop) exit 0 ;;
esac
`;
const FILES = {
  "app/README.md": "# app\nhello\n",
  "app/tools/info.sh": { text: INFO_SH, mode: 0o755 },
  "app/tools/harness.sh": { text: HARNESS_SH, mode: 0o755 },
};

const CYCLE: [string, Record<string, unknown>][] = [
  ["read_app", { path: "README.md" }],
  ["info_app", {}],
  ["count_app", {}],
];

/** A replica process. */
interface Replica {
  port: number;
  stateDir: string;
  child: Deno.ChildProcess;
  pid: number;
}

/** What one run measured. */
interface RunResult {
  calls: number;
  seconds: number;
  latencies: number[];
  errorResults: number;
  sessionsLost: number;
  unfinished: number;
  peakRssKiB: number;
  peakSessions: number;
  lossKinds: Map<string, number>;
}

async function startReplica(root: string, i: number): Promise<Replica> {
  const stateDir = `${root}/state-${i}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: serveArgs(
      "--eval",
      "app/review",
      "--repo",
      root,
      "--state-dir",
      stateDir,
      "--http",
      "127.0.0.1:0",
      "--max-sessions",
      "1024",
      "--drain-timeout",
      "30s",
    ),
    env: { TEST_PIDDIR: root },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  while (!/on http:\/\/127\.0\.0\.1:(\d+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`replica ${i} did not start:\n${text}`);
    text += value;
  }
  void (async () => {
    while (!(await reader.read()).done) { /* drain stderr */ }
  })().catch(() => {});
  const port = Number(/on http:\/\/127\.0\.0\.1:(\d+)/.exec(text)![1]);
  return { port, stateDir, child, pid: child.pid };
}

/** RSS of the replica process alone, KiB. */
function rssKiB(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)/m.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

async function liveSessions(port: number): Promise<number> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return Number(/^toolhost_mcp_sessions (\d+)$/m.exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** How a session was lost: the HTTP status when there is one, else the error's start. */
function lossKind(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  const html = /<html>/.test(String(e)) ? " (HAProxy's own page)" : "";
  if (typeof code === "number" && code >= 400) return `HTTP ${code}${html}`;
  return String(e).replace(/[0-9a-f-]{36}/g, "ID").slice(0, 60);
}

/** One client: initialize, list, then `calls` successful calls, re-initializing on loss. */
async function runClient(url: string, calls: number, deadline: number, r: RunResult) {
  let done = 0;
  let c: Client | undefined;
  let transport: StreamableHTTPClientTransport | undefined;
  let lostInARow = 0;
  while (done < calls && Date.now() < deadline) {
    try {
      if (c === undefined) {
        const fresh = new Client({ name: "scale", version: "1" });
        // A replica that dies mid-call cuts the call's event stream before its response;
        // the SDK client only reports that (onerror) and lets the request wait for its 60 s
        // timeout. Closing fails the request at once, so the client initializes again.
        fresh.onerror = (e) => {
          if (String(e).includes("SSE stream disconnected")) void fresh.close().catch(() => {});
        };
        c = fresh;
        transport = new StreamableHTTPClientTransport(new URL(url));
        await c.connect(transport);
        await c.listTools();
      }
      const [name, args] = CYCLE[done % CYCLE.length];
      const t0 = performance.now();
      const res = await c.callTool({ name, arguments: args });
      r.latencies.push(performance.now() - t0);
      if (res.isError) r.errorResults++;
      done++;
      r.calls++;
      lostInARow = 0;
    } catch (e) {
      const kind = lossKind(e);
      r.lossKinds.set(kind, (r.lossKinds.get(kind) ?? 0) + 1);
      // The session is gone (replica drained or killed) or unreachable now: end it where it
      // may still live (so it does not wait for the idle timeout), then initialize again
      // elsewhere, backing off while the balancer has no server to offer.
      r.sessionsLost++;
      await transport?.terminateSession().catch(() => {});
      await c?.close().catch(() => {});
      c = undefined;
      lostInARow++;
      await new Promise((res) => setTimeout(res, Math.min(2000, 50 * 2 ** (lostInARow - 1))));
    }
  }
  if (done < calls) r.unfinished++;
  await c?.close().catch(() => {});
}

/** Run `clients` clients against `n` replicas; `kill` sends SIGTERM/SIGKILL a third in. */
async function run(root: string, n: number, clients: number, kill: boolean): Promise<RunResult> {
  const replicas: Replica[] = [];
  let lb: Balancer | undefined;
  const r: RunResult = {
    calls: 0,
    seconds: 0,
    latencies: [],
    errorResults: 0,
    sessionsLost: 0,
    unfinished: 0,
    peakRssKiB: 0,
    peakSessions: 0,
    lossKinds: new Map(),
  };
  try {
    for (let i = 0; i < n; i++) replicas.push(await startReplica(root, replicas.length));
    lb = await startHaproxy(root, replicas.map((x) => x.port));
    const t0 = performance.now();
    const deadline = Date.now() + MAX_MS;
    const total = clients * CALLS;
    let killed = !kill;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const live = replicas.filter((x) => x.child.pid && !x.stateDir.endsWith("-gone"));
        const sessions = (await Promise.all(live.map((x) => liveSessions(x.port))))
          .reduce((a, b) => a + b, 0);
        const rss = live.reduce((a, x) => a + rssKiB(x.pid), 0);
        if (sessions > r.peakSessions) {
          r.peakSessions = sessions;
          r.peakRssKiB = rss;
        }
        if (!killed && r.calls >= total / 3) {
          killed = true;
          replicas[0].child.kill("SIGTERM");
          replicas[1].child.kill("SIGKILL");
          replicas[0].stateDir += "-gone";
          replicas[1].stateDir += "-gone";
        }
        await new Promise((res) => setTimeout(res, 100));
      }
    })();
    await Promise.all(
      Array.from({ length: clients }, () => runClient(lb!.url, CALLS, deadline, r)),
    );
    r.seconds = (performance.now() - t0) / 1000;
    sampling = false;
    await sampler;
    return r;
  } finally {
    await lb?.stop();
    for (const x of replicas) {
      try {
        x.child.kill("SIGTERM");
      } catch { /* exited */ }
      await x.child.status;
    }
  }
}

/** Pids (not this process's) whose environment or command line names `root`. */
function leftover(root: string): number[] {
  const out: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name) || Number(e.name) === Deno.pid) continue;
    try {
      const cmd = Deno.readTextFileSync(`/proc/${e.name}/cmdline`);
      const env = Deno.readTextFileSync(`/proc/${e.name}/environ`);
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state !== "Z" && (cmd.includes(root) || env.includes(root))) out.push(Number(e.name));
    } catch { /* gone or not ours */ }
  }
  return out;
}

function pct(sorted: number[], p: number): number {
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/**
 * The `scale-out` bench section: figure lines (see the module documentation).
 *
 * @example
 * ```ts
 * import { benchScaleOut } from "./scale_out_bench.ts";
 * // for (const line of await benchScaleOut()) console.log(line);
 * ```
 */
export async function benchScaleOut(): Promise<string[]> {
  const missing = haproxyMissing();
  if (missing) return [`scale-out: SKIP (${missing})`];
  await using tmp = await tempWorkspace(TOML, FILES);
  const root = tmp.root;
  const lines: string[] = [];
  const main = await run(root, 3, CLIENTS, true);
  const lat = main.latencies.sort((a, b) => a - b);
  lines.push(
    `scale-out: ${CLIENTS} clients × ${CALLS} calls via HAProxy over 3 replicas, ` +
      `one SIGTERMed and one SIGKILLed at 1/3`,
    `  calls ok            ${main.calls} in ${main.seconds.toFixed(1)} s = ` +
      `${(main.calls / main.seconds).toFixed(0)} calls/s`,
    `  latency             p50 ${pct(lat, 0.5).toFixed(1)} ms, p99 ${pct(lat, 0.99).toFixed(1)} ms`,
    `  error results       ${main.errorResults}`,
    `  sessions lost       ${main.sessionsLost} (re-initialized; from the drained/killed replicas)`,
    `  clients unfinished  ${main.unfinished}`,
    ...[...main.lossKinds].map(([k, n]) => `    lost ${n}× ${k}`),
    `  RSS per live session ${
      main.peakSessions ? (main.peakRssKiB / main.peakSessions / 1024).toFixed(2) : "?"
    } MiB (replica RSS ${
      (main.peakRssKiB / 1024).toFixed(0)
    } MiB at ${main.peakSessions} sessions)`,
  );
  // The SIGKILLed replica could not stop its tool sessions: `toolhost sweep` does.
  for (let i = 0; i < 3; i++) {
    await new Deno.Command(Deno.execPath(), {
      args: serveArgs("--repo", root, "--state-dir", `${root}/state-${i}`).map((a) =>
        a === "serve" ? "sweep" : a
      ),
      env: { TEST_PIDDIR: root },
      stdout: "null",
      stderr: "null",
    }).output();
  }
  const left = leftover(root);
  lines.push(`  /proc scan          ${left.length} process(es) left after the run and the sweep`);
  if (!RATIO) {
    lines.push("  scale-out ratio     not measured (SCALE_RATIO=0)");
    lines.push(
      `  verdict             ${
        main.unfinished + main.errorResults + left.length ? "FAILED" : "ok"
      }`,
    );
    return lines;
  }
  const ratioClients = Math.min(CLIENTS, QUICK ? 40 : 100);
  const one = await run(root, 1, ratioClients, false);
  const three = await run(root, 3, ratioClients, false);
  const r1 = one.calls / one.seconds;
  const r3 = three.calls / three.seconds;
  lines.push(
    `  scale-out ratio     3 replicas / 1 = ${(r3 / r1).toFixed(2)}x ` +
      `(${r3.toFixed(0)} vs ${r1.toFixed(0)} calls/s, ${ratioClients} clients, no kills; ` +
      `nproc ${navigator.hardwareConcurrency}: replicas share the cores, so ≤ ~cores/1)`,
  );
  const ok = main.unfinished === 0 && main.errorResults === 0 && left.length === 0 &&
    one.unfinished + three.unfinished + one.errorResults + three.errorResults === 0;
  lines.push(`  verdict             ${ok ? "ok" : "FAILED"}`);
  return lines;
}

if (import.meta.main) {
  const lines = await benchScaleOut();
  for (const l of lines) console.log(l);
  if (lines.some((l) => /verdict\s+FAILED/.test(l))) Deno.exit(1);
}
