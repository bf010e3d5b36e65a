/**
 * One scale-out run (issue 20), shared by `bench/scale_out_bench.ts` (figures) and
 * `tests/mcp/scale_out_test.ts` (a bounded run in CI): `serve --http` replicas on loopback
 * behind HAProxy (`docs/haproxy.cfg`), MCP clients that each initialize and make a fixed
 * number of calls cycling a built-in (`read`), a json command tool and a session-bound
 * tool, optionally one replica SIGTERMed (drain) and another SIGKILLed a third of the way
 * in. Clients whose session is lost initialize again through the balancer and finish.
 * Then `toolhost sweep` on every replica's state dir and a `/proc` scan for leftovers.
 *
 * @module
 */

import { serveArgs } from "../tests/mcp/_helpers.ts";
import { type Balancer, startHaproxy } from "../tests/mcp/_haproxy.ts";
import { startClient, type Tally } from "./scale_out_client.ts";

export { type Tally } from "./scale_out_client.ts";

/** The eval the replicas serve: `read` (built-in), `info` (json) and `count` (session). */
export const SCALE_TOML = `[artifacts.app]
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

/** Files of {@link SCALE_TOML}'s workspace. */
export const SCALE_FILES: Record<string, string | { text: string; mode: number }> = {
  "app/README.md": "# app\nhello\n",
  "app/tools/info.sh": { text: INFO_SH, mode: 0o755 },
  "app/tools/harness.sh": { text: HARNESS_SH, mode: 0o755 },
};

/** Options of {@link runScaleOut}. */
export interface ScaleOptions {
  /** Workspace root (holds {@link SCALE_TOML}); state dirs go below it. */
  root: string;
  /** Replicas, 1..3. */
  replicas: number;
  /** Concurrent MCP clients. */
  clients: number;
  /** Successful calls each client makes. */
  calls: number;
  /** SIGTERM replica 0 and SIGKILL replica 1 once a third of the calls are done. */
  kill: boolean;
  /** Wall-clock cap of the clients, ms: a client still short of its calls then gives up. */
  maxMs: number;
}

/** What one run measured. */
export interface ScaleResult extends Tally {
  /** Wall time of the clients, s. */
  seconds: number;
  /** Replica RSS (KiB, summed) at the highest live-session count seen, and that count. */
  peakRssKiB: number;
  peakSessions: number;
  /** Whether the kills were sent. */
  killed: boolean;
  /** Exit codes of the replicas (SIGTERMed and stopped ones: 0 after a completed drain, 143 when it was cut; SIGKILLed: null). */
  exits: (number | null)[];
  /**
   * CPU seconds during the run (last seen for replicas that exited): the replicas
   * themselves, their reaped tool and harness processes, this process (every client), and
   * HAProxy.
   */
  cpu: { replicas: number; tools: number; clients: number; haproxy: number };
}

/** A replica process. */
interface Replica {
  port: number;
  child: Deno.ChildProcess;
  gone: boolean;
  /** CPU seconds last seen: its own, and its reaped children's. */
  cpu: { own: number; children: number };
}

const TICK_S = 1 / 100; // USER_HZ is 100 on Linux

/** CPU seconds of `pid` so far, its own and its reaped children's (zeros when gone). */
function cpuOf(pid: number): { own: number; children: number } {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      own: (Number(f[11]) + Number(f[12])) * TICK_S,
      children: (Number(f[13]) + Number(f[14])) * TICK_S,
    };
  } catch {
    return { own: 0, children: 0 };
  }
}

/** The state dir of replica `i` of a run in `root`. */
export function stateDir(root: string, i: number): string {
  return `${root}/state-${i}`;
}

async function startReplica(root: string, i: number): Promise<Replica> {
  const child = new Deno.Command(Deno.execPath(), {
    args: serveArgs(
      "--eval",
      "app/review",
      "--repo",
      root,
      "--state-dir",
      stateDir(root, i),
      "--http",
      "127.0.0.1:0",
      "--max-sessions",
      "1024",
      "--drain-timeout",
      "30s",
    ),
    // Inherited by every tool and harness process: what the leftover scan looks for.
    env: { SCALE_OUT_ROOT: root },
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
  return { port, child, gone: false, cpu: { own: 0, children: 0 } };
}

/** RSS of one process alone, KiB (0 when gone). */
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

function emptyTally(): Tally {
  return {
    calls: 0,
    latencies: [],
    byTool: new Map(),
    inits: [],
    errorResults: 0,
    countGaps: 0,
    sessionsLost: 0,
    unfinished: 0,
    lossKinds: new Map(),
  };
}

/**
 * Run `clients` clients against `replicas` replicas behind HAProxy (see the module
 * documentation); every replica is stopped (SIGTERM, awaited) before it resolves.
 *
 * @example
 * ```ts
 * import { runScaleOut } from "./scale_out_run.ts";
 * // const r = await runScaleOut({ root, replicas: 3, clients: 20, calls: 6, kill: true, maxMs: 600_000 });
 * // r.unfinished === 0 && r.errorResults === 0
 * ```
 */
export async function runScaleOut(o: ScaleOptions): Promise<ScaleResult> {
  const replicas: Replica[] = [];
  let lb: Balancer | undefined;
  const r: ScaleResult = {
    ...emptyTally(),
    seconds: 0,
    peakRssKiB: 0,
    peakSessions: 0,
    killed: false,
    exits: [],
    cpu: { replicas: 0, tools: 0, clients: 0, haproxy: 0 },
  };
  const cpuAt = cpuOf(Deno.pid);
  try {
    for (let i = 0; i < o.replicas; i++) replicas.push(await startReplica(o.root, i));
    lb = await startHaproxy(o.root, replicas.map((x) => x.port));
    const started = replicas.map((x) => cpuOf(x.child.pid)); // start-up is not the run's
    const t0 = performance.now();
    const deadline = Date.now() + o.maxMs;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        await sample(replicas, r);
        await new Promise((res) => setTimeout(res, 100));
      }
    })();
    const url = lb.url;
    // The kills follow the calls themselves, not the sampler: under load a `/metrics`
    // answer may take seconds, and the clients could be done before it came.
    const onCall = () => killAtAThird(replicas, r, o);
    await Promise.all(
      Array.from({ length: o.clients }, () => startClient(url, o.calls, deadline, r, onCall)),
    );
    r.seconds = (performance.now() - t0) / 1000;
    sampling = false;
    await sampler;
    await sample(replicas, r); // the last CPU figures
    const me = cpuOf(Deno.pid);
    r.cpu = {
      replicas: replicas.reduce((a, x, i) => a + x.cpu.own - started[i].own, 0),
      tools: replicas.reduce((a, x, i) => a + x.cpu.children - started[i].children, 0),
      clients: me.own - cpuAt.own,
      haproxy: cpuOf(lb.pid).own,
    };
    return r;
  } finally {
    await lb?.stop();
    for (const x of replicas) {
      try {
        x.child.kill("SIGTERM");
      } catch { /* exited */ }
      r.exits.push((await x.child.status).code);
    }
    // The exits of SIGKILLed replicas say nothing: null.
    if (r.killed) r.exits[1] = null;
  }
}

/** Note CPU, live sessions and RSS. */
async function sample(replicas: Replica[], r: ScaleResult): Promise<void> {
  for (const x of replicas) {
    const now = cpuOf(x.child.pid);
    if (now.own > 0) x.cpu = now; // a replica that exited keeps its last figures
  }
  const live = replicas.filter((x) => !x.gone);
  const sessions = (await Promise.all(live.map((x) => liveSessions(x.port))))
    .reduce((a, b) => a + b, 0);
  const rss = live.reduce((a, x) => a + rssKiB(x.child.pid), 0);
  if (sessions > r.peakSessions) {
    r.peakSessions = sessions;
    r.peakRssKiB = rss;
  }
}

/** SIGTERM replica 0 and SIGKILL replica 1 once a third of the calls are done. */
function killAtAThird(replicas: Replica[], r: ScaleResult, o: ScaleOptions): void {
  if (o.kill && !r.killed && replicas.length >= 2 && r.calls >= (o.clients * o.calls) / 3) {
    r.killed = true;
    replicas[0].child.kill("SIGTERM");
    replicas[1].child.kill("SIGKILL");
    replicas[0].gone = true;
    replicas[1].gone = true;
  }
}

/**
 * `toolhost sweep` on the state dirs of `n` replicas (a SIGKILLed replica could not stop
 * its tool sessions), then the pids (not this process's) whose command line or
 * environment names `root` and that are not zombies.
 *
 * @example
 * ```ts
 * import { sweepAndScan } from "./scale_out_run.ts";
 * // (await sweepAndScan(root, 3)).length === 0
 * ```
 */
export async function sweepAndScan(root: string, n: number): Promise<number[]> {
  for (let i = 0; i < n; i++) {
    await new Deno.Command(Deno.execPath(), {
      args: serveArgs("--repo", root, "--state-dir", stateDir(root, i)).map((a) =>
        a === "serve" ? "sweep" : a
      ),
      stdout: "null",
      stderr: "null",
    }).output();
  }
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

/**
 * The machine's load average (1, 5, 15 min) as `/proc/loadavg` prints it: every figure is
 * reported with it, since other jobs share the cores.
 *
 * @example
 * ```ts
 * import { loadAverage } from "./scale_out_run.ts";
 * loadAverage(); // e.g. "3.52 3.69 4.16"
 * ```
 */
export function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch {
    return "?";
  }
}
