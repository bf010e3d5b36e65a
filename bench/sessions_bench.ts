/**
 * Tool sessions: start-to-ready latency and bound-call round trips.
 *
 * 1. Start-to-ready, raw (no toolhost): spawn the harness program and time until its
 *    readiness line — a harness-kit harness (`sessionHarness`, socket server) against the
 *    same program without harness-kit (a Deno script that reads stdin and prints
 *    `ready`). Goal (issue 19): harness-kit adds at most 20 ms. Also each one's CPU time up
 *    to readiness (all its threads, from /proc), which a shared machine's load inflates less.
 * 2. Start-to-ready through the supervisor: the first bound call of a registry minus a
 *    steady-state bound call (sweep, session root with synced owner/lease/journal, spawn,
 *    readiness), for the harness-kit harness and for a `sh` harness.
 * 3. Round trips through the registry: a bound call inside a running session against a
 *    one-shot json tool call of the same program, for harness-kit (Deno) and for `sh`.
 *
 * Run alone: `deno run -A bench/sessions_bench.ts`. BENCH_QUICK=1 runs fewer rounds.
 * Start-to-ready runs more rounds than the rest (15, or 31), in ABBA order, and reports the
 * load average with its figures: a shared machine's load moves a single median by more
 * than the bound.
 *
 * @module
 */

import { join } from "node:path";
import { Registry } from "../lib/registry/registry.ts";
import { loadWorkspace } from "../lib/workspace/load_workspace.ts";
import { reportGoal } from "./goals.ts";

const HARNESS_KIT = new URL("../harness-kit/mod.ts", import.meta.url).pathname;
const DENO_RUN = ["run", "--allow-all", "--no-config", "--quiet"];

const KIT_HARNESS = `import { sessionHarness } from ${JSON.stringify(HARNESS_KIT)};
await sessionHarness({ start: () => ({ n: 0 }), actions: { ping: (_a, { state }) => String(++state.n) } });
`;
const KIT_TOOL = `import { runJsonTool } from ${JSON.stringify(HARNESS_KIT)};
await runJsonTool({ handler: () => "pong" });
`;
const PLAIN_READY = `import process from "node:process";
for await (const _ of process.stdin) { /* read the envelope */ }
process.stdout.write("ready\\n");
setInterval(() => {}, 1 << 30);
`;
const SH_HARNESS = `#!/bin/sh
case "$1" in
  start) cat >/dev/null; echo ready; while [ ! -e "$ARTIFACTIZE_SESSION_DIR/quit" ]; do sleep 0.05; done ;;
  stop) cat >/dev/null; touch "$ARTIFACTIZE_SESSION_DIR/quit" ;;
  *) cat >/dev/null; printf '{"content":[{"type":"text","text":"pong"}]}' ;;
esac
`;

const MANIFEST = (deno: string) => {
  const kit = (role: string) =>
    `{ command = ${JSON.stringify(deno)}, args = ${
      JSON.stringify([...DENO_RUN, "kit_harness.ts", role])
    } }`;
  const sh = (role: string) => `{ command = "./sh_harness.sh", args = ["${role}"] }`;
  const tool = (name: string, session: string | null, cmd: string, args: string[]) =>
    `\n[artifacts.app.views.agent_tools.${name}]\n${
      session ? `session = "${session}"\n` : ""
    }description = "bench"\nprotocol = "json"\ncommand = "${cmd}"\nargs = ${
      JSON.stringify(args)
    }\n`;
  return `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n
[artifacts.app.views.agent_sessions.kit]\nstart = ${kit("start")}\nstop = ${kit("stop")}\n
[artifacts.app.views.agent_sessions.sh]\nstart = ${sh("start")}\nstop = ${sh("stop")}\n${
    tool("kit_ping", "kit", deno, [...DENO_RUN, "kit_harness.ts", "ping"])
  }${tool("kit_oneshot", null, deno, [...DENO_RUN, "kit_tool.ts"])}${
    tool("sh_ping", "sh", "./sh_harness.sh", ["ping"])
  }${tool("sh_oneshot", null, "./sh_harness.sh", ["ping"])}`;
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** CPU time a process has used so far, in ms: the sum over its threads of
 * `/proc/<pid>/task/<tid>/schedstat` (nanoseconds); NaN without /proc. */
function cpuSoFar(pid: number): number {
  try {
    let ns = 0;
    for (const t of Deno.readDirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(Deno.readTextFileSync(`/proc/${pid}/task/${t.name}/schedstat`).split(" ")[0]);
      } catch { /* the thread ended */ }
    }
    return ns / 1e6;
  } catch {
    return NaN;
  }
}

/** The last readiness's CPU time (see {@linkcode timeToReady}). */
let lastReadyCpu = NaN;

/** Spawn `args` with a one-line envelope on stdin; ms until the first stdout line (and the
 * child's CPU time up to then in `lastReadyCpu`: wall time on a shared machine is mostly
 * the wait for a core). */
async function timeToReady(args: string[], cwd: string, sessionDir: string): Promise<number> {
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { ARTIFACTIZE_SESSION_DIR: sessionDir },
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(envelope(cwd)));
  await w.close();
  const reader = child.stdout.getReader();
  let seen = "";
  while (!seen.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the harness exited before it was ready");
    seen += new TextDecoder().decode(value);
  }
  const ms = performance.now() - t0;
  lastReadyCpu = cpuSoFar(child.pid);
  child.kill("SIGTERM");
  await child.status;
  reader.releaseLock();
  await child.stdout.cancel();
  return ms;
}

function envelope(dir: string): string {
  return JSON.stringify({
    version: 1,
    context: { artifactId: "app", artifactPath: dir, outputDir: dir, tmpDir: dir, scope: {} },
    args: {},
  });
}

/** The machine's load average (1, 5, 15 min), or "?" without /proc. */
function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch {
    return "?";
  }
}

async function rawReady(app: string, rounds: number): Promise<string[]> {
  const session = join(app, "raw_session");
  Deno.mkdirSync(session, { recursive: true });
  const kitArgs = [...DENO_RUN, "kit_harness.ts", "start"];
  const plainArgs = [...DENO_RUN, "plain_ready.ts"];
  const kit: number[] = [];
  const plain: number[] = [];
  const kitCpu: number[] = [];
  const plainCpu: number[] = [];
  await timeToReady(kitArgs, app, session); // warm the caches
  await timeToReady(plainArgs, app, session);
  const before = loadAverage();
  // Interleaved in ABBA order, so a load that drifts during the run weighs on both alike.
  for (let i = 0; i < rounds; i++) {
    for (const which of i % 2 === 0 ? ["kit", "plain"] : ["plain", "kit"]) {
      if (which === "kit") {
        kit.push(await timeToReady(kitArgs, app, session));
        kitCpu.push(lastReadyCpu);
      } else {
        plain.push(await timeToReady(plainArgs, app, session));
        plainCpu.push(lastReadyCpu);
      }
    }
  }
  const added = median(kit) - median(plain);
  const cpuAdded = median(kitCpu) - median(plainCpu);
  const paired = median(kit.map((k, i) => k - plain[i]));
  return [
    `start-to-ready, raw spawn (median of ${rounds} ABBA-interleaved rounds; load average ${before} before, ${loadAverage()} after):`,
    `  harness-kit sessionHarness      ${median(kit).toFixed(1)} ms (fastest ${
      Math.min(...kit).toFixed(1)
    })`,
    `  same program without harness-kit ${median(plain).toFixed(1)} ms (fastest ${
      Math.min(...plain).toFixed(1)
    })`,
    `  -> harness-kit adds ${added.toFixed(1)} ms (${
      reportGoal("sessions.kit-added", added)
    }); median of the rounds' own differences ${paired.toFixed(1)} ms`,
    `  CPU to ready (all threads, median): harness-kit ${median(kitCpu).toFixed(1)} ms, without ${
      median(plainCpu).toFixed(1)
    } ms -> ${cpuAdded >= 0 ? "+" : ""}${cpuAdded.toFixed(1)} ms`,
  ];
}

async function viaRegistry(root: string, rounds: number): Promise<string[]> {
  const ws = await loadWorkspace(root);
  const lines: string[] = [];
  const measure = async (tool: string) => {
    const firsts: number[] = [];
    const steady: number[] = [];
    for (let r = 0; r < Math.max(3, Math.floor(rounds / 2)); r++) {
      const reg = await Registry.open(ws, "app/review", { stateDir: join(root, ".state") });
      try {
        let t = performance.now();
        await reg.call(tool, {});
        firsts.push(performance.now() - t);
        for (let i = 0; i < rounds; i++) {
          t = performance.now();
          await reg.call(tool, {});
          steady.push(performance.now() - t);
        }
      } finally {
        await reg.close();
      }
    }
    return { first: median(firsts), steady: median(steady) };
  };
  const oneshot = async (tool: string) => {
    const reg = await Registry.open(ws, "app/review", { stateDir: join(root, ".state") });
    const xs: number[] = [];
    try {
      await reg.call(tool, {});
      for (let i = 0; i < rounds; i++) {
        const t = performance.now();
        await reg.call(tool, {});
        xs.push(performance.now() - t);
      }
    } finally {
      await reg.close();
    }
    return median(xs);
  };
  for (
    const [label, bound, single] of [["harness-kit (deno)", "kit_ping_app", "kit_oneshot_app"], [
      "sh",
      "sh_ping_app",
      "sh_oneshot_app",
    ]]
  ) {
    const b = await measure(bound);
    const o = await oneshot(single);
    lines.push(
      `${label}:`,
      `  supervisor start-to-ready (first bound call - steady call) ${
        (b.first - b.steady).toFixed(1)
      } ms`,
      `  bound call round trip ${b.steady.toFixed(1)} ms ; one-shot json tool call ${
        o.toFixed(1)
      } ms -> ratio ${(b.steady / o).toFixed(2)}x`,
    );
  }
  return lines;
}

/**
 * Run the sessions benchmark and return its report lines.
 *
 * @example
 * ```ts
 * import { benchSessions } from "./sessions_bench.ts";
 * for (const line of await benchSessions()) console.log(line);
 * ```
 */
export async function benchSessions(): Promise<string[]> {
  const quick = Deno.env.get("BENCH_QUICK") === "1";
  const rounds = quick ? 5 : 15;
  // Start-up is a few tens of ms on a shared 2-core machine: more rounds than the
  // registry's, or one busy moment moves the median.
  const readyRounds = quick ? 15 : 31;
  const root = Deno.realPathSync(await Deno.makeTempDir({ prefix: "toolhost_bench_sessions_" }));
  const path = Deno.env.get("PATH");
  try {
    const app = join(root, "app");
    Deno.mkdirSync(app);
    Deno.writeTextFileSync(join(app, "kit_harness.ts"), KIT_HARNESS);
    Deno.writeTextFileSync(join(app, "kit_tool.ts"), KIT_TOOL);
    Deno.writeTextFileSync(join(app, "plain_ready.ts"), PLAIN_READY);
    Deno.writeTextFileSync(join(app, "sh_harness.sh"), SH_HARNESS, { mode: 0o755 });
    // A manifest names a program on PATH (never an absolute path): `deno` must be this
    // Deno, so a folder holding only a `deno` link to it goes first on PATH for the run.
    const bin = join(root, "bin");
    Deno.mkdirSync(bin);
    Deno.symlinkSync(Deno.execPath(), join(bin, "deno"));
    Deno.writeTextFileSync(join(root, "toolhost.toml"), MANIFEST("deno"));
    Deno.env.set("PATH", `${bin}:${path ?? "/usr/bin:/bin"}`);
    return [...await rawReady(app, readyRounds), ...await viaRegistry(root, rounds)];
  } finally {
    if (path === undefined) Deno.env.delete("PATH");
    else Deno.env.set("PATH", path);
    await Deno.remove(root, { recursive: true });
  }
}

if (import.meta.main) {
  for (const line of await benchSessions()) console.log(line);
}
