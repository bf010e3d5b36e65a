/**
 * Warm sandboxes (lib/sandbox/warm_pool.ts): a confined call that runs in a pre-spawned
 * sandbox sees exactly what a cold one sees — environment (values with quotes, newlines,
 * `$()`, backslashes, control and non-ASCII characters, a lone surrogate; names dash
 * treats specially), argv, working directory, stdin and the descriptor table — a program
 * that cannot be executed fails alike, each spare serves one call, and spares end when
 * idle, on close, and with a `kill -9` of toolhost (nothing left by a `/proc` scan; the
 * spare's call directory is swept).
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readlinkSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { WarmPool } from "../../lib/sandbox/warm_pool.ts";
import { openConfine } from "../../lib/sandbox/confine.ts";
import { invokePlainCommand } from "../../lib/protocols/invoke.ts";
import { callsRoot } from "../../lib/process/call_dirs.ts";
import { waiterShell } from "../../lib/process/warm_script.ts";
import { sweepSessions } from "../../lib/sessions/sweep.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { markerGone, printSkip, processExists, skipReason } from "./_corpus.ts";
import { JSON_PROBE, normalize, PROBE, TRICKY } from "./_warm.ts";
import { callDirKinds } from "../helpers/made_ahead.ts";
import { switchedRegistry } from "./_warm_switch.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.probe]
description = "Report what the process sees."
protocol = "plain"
command = "tools/probe.sh"
args = ["{a}", "{b}", "--", "{a}"]
input_schema = { type = "object", properties = { a = { type = "string" }, b = { type = "string" } }, required = ["a", "b"] }
sandbox = "none"

[artifacts.app.views.agent_tools.jprobe]
description = "Report stdin and environment."
protocol = "json"
command = "tools/jprobe.sh"
args = []
sandbox = "none"

[artifacts.app.views.agent_tools.broken]
description = "An interpreter that does not exist."
protocol = "plain"
command = "tools/broken.sh"
args = []
sandbox = "none"
`;

const FILES = {
  "app/README.md": "# app\n",
  "app/tools/probe.sh": { text: PROBE, mode: 0o755 },
  "app/tools/jprobe.sh": { text: JSON_PROBE, mode: 0o755 },
  "app/tools/broken.sh": { text: "#!/nonexistent/interpreter\n", mode: 0o755 },
};

function trickyEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: "/usr/bin:/bin" };
  TRICKY.forEach((v, i) => (env[`V${i}`] = v));
  for (const n of ["PPID", "LINENO", "IFS", "PS1", "PS4", "ENV", "_", "OLDPWD", "PWD", "HOME"]) {
    env[n] = `${n} ${TRICKY[0]}`;
  }
  env.DENO_EXTRA_STDIO_FDS = "9";
  return env;
}

function text(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

async function open(root: string, warm: boolean, env = trickyEnv()) {
  return await Registry.open(await loadWorkspace(root), "app/review", {
    env,
    warmSandboxes: warm,
  });
}

/** Two calls on a warm registry: the second runs in the spare the first left. */
async function warmSecond(reg: Registry, tool: string, args: Record<string, unknown>) {
  await reg.call(tool, args);
  await reg.warm!.settled();
  const before = reg.warm!.stats.taken;
  const r = await reg.call(tool, args);
  assert.equal(reg.warm!.stats.taken, before + 1, "the second call ran in a warm sandbox");
  return r;
}

/** The workspace's state dir and a confinement of `mode` over it (network off). */
async function confined(
  root: string,
  mode: "none" | "read",
  ctx: { scope?: string[]; executionPaths?: string[]; program?: string } = {},
) {
  const stateDir = join(root, ".toolhost", "state");
  const c = openConfine({
    policy: { mode, network: false, read: [], write: [] },
    stateDir,
  }, { ws: await loadWorkspace(root), scope: [], executionPaths: [], ...ctx });
  if (!c.ok) throw new Error(c.reason);
  return { stateDir, c };
}

const skip = skipReason() ?? (waiterShell() === null ? "no trusted dash" : undefined);

Deno.test("warm sandbox: the tool sees the cold path's env, argv, cwd, stdin and fds", async () => {
  if (skip) return printSkip("warm env/argv/fds", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const args = { a: TRICKY.join("|"), b: "" };
  const cold = await open(ws.root, false);
  const warm = await open(ws.root, true);
  try {
    const c = await cold.call("probe_app", args);
    const w = await warmSecond(warm, "probe_app", args);
    assert.equal(c.isError, false, text(c));
    assert.equal(normalize(text(w)), normalize(text(c)));
    assert.match(text(c), /^fd 0 /m); // the report is there at all
    const jc = await cold.call("jprobe_app", {});
    const jw = await warmSecond(warm, "jprobe_app", {});
    assert.equal(jc.isError, false, text(jc));
    const [stdinC, envC] = text(jc).split(" ");
    const [stdinW, envW] = text(jw).split(" ");
    assert.equal(normalize(`stdin ${stdinW}`), normalize(`stdin ${stdinC}`));
    assert.equal(normalize(`env ${envW}`), normalize(`env ${envC}`));
    assert.match(Buffer.from(stdinW, "hex").toString(), /"outputDir":/);
  } finally {
    await cold.close();
    await warm.close();
  }
});

Deno.test("warm sandbox: a program that cannot run fails as on the cold path", async () => {
  if (skip) return printSkip("warm unexecutable", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const cold = await open(ws.root, false);
  const warm = await open(ws.root, true);
  try {
    const c = await cold.call("broken_app", {});
    const w = await warmSecond(warm, "broken_app", {});
    assert.equal(c.isError, true);
    assert.deepEqual(w, c);
  } finally {
    await cold.close();
    await warm.close();
  }
});

Deno.test("warm sandbox: an environment dash cannot export unchanged runs cold", async () => {
  if (skip) return printSkip("warm shell name", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const env = { ...trickyEnv(), "A-B": "not a shell name" };
  const cold = await open(ws.root, false, env);
  const warm = await open(ws.root, true, env);
  try {
    const args = { a: "x", b: "y" };
    const c = await cold.call("probe_app", args);
    await warm.call("probe_app", args);
    await warm.warm!.settled();
    const w = await warm.call("probe_app", args); // takes the spare, ends it, runs cold
    assert.equal(warm.warm!.stats.taken, 1);
    assert.equal(normalize(text(w)), normalize(text(c)));
    assert.match(normalize(text(w)), /"A-B=not a shell name"/);
  } finally {
    await cold.close();
    await warm.close();
  }
});

/** Processes whose command line or working directory is inside `root`. */
function processesIn(root: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || !processExists(Number(name))) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`).startsWith(root)) out.push(Number(name));
    } catch { /* gone, or not ours to read */ }
  }
  return out;
}

async function gone(root: string): Promise<number[]> {
  const byCmdline = await markerGone(root);
  for (let i = 0; i < 600 && processesIn(root).length > 0; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return [...byCmdline, ...processesIn(root)];
}

Deno.test("warm sandbox: one call per spare, idle spares end, close ends the rest", async () => {
  if (skip) return printSkip("warm lifecycle", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const { stateDir, c } = await confined(ws.root, "none");
  const pool = new WarmPool({ idleMs: 200 });
  const call = () =>
    invokePlainCommand({
      command: "/bin/sh",
      template: ["-c", "echo $$"],
      properties: [],
      args: {},
      cwd: join(ws.root, "app"),
      stateDir,
      baseEnv: { PATH: "/usr/bin:/bin" },
      confine: c.confine,
      warm: pool,
    });
  await call();
  await pool.settled();
  assert.equal(pool.size, 1);
  assert.equal(callDirKinds(stateDir).journaled.length, 1, "the spare owns a call directory");
  const r = await call(); // takes it; the next one is spawned after
  assert.equal(pool.stats.taken, 1);
  assert.equal(r.isError, false);
  await pool.settled();
  assert.equal(pool.stats.spawned, 2, "a spare serves one call: a new one was spawned");
  // Idle: ended, confirmed, and its call directory removed.
  while (pool.size > 0) await new Promise((r) => setTimeout(r, 50));
  await pool.close();
  assert.deepEqual(await gone(ws.root), []);
  assert.deepEqual(readdirSync(callsRoot(stateDir)), []);
  // close() with a spare waiting.
  const pool2 = new WarmPool();
  await invokePlainCommand({
    command: "/bin/true",
    template: [],
    properties: [],
    args: {},
    cwd: join(ws.root, "app"),
    stateDir,
    baseEnv: {},
    confine: c.confine,
    warm: pool2,
  });
  await pool2.settled();
  assert.equal(pool2.size, 1);
  assert.notDeepEqual(processesIn(ws.root), []);
  await pool2.close();
  assert.deepEqual(await gone(ws.root), []);
  assert.deepEqual(readdirSync(callsRoot(stateDir)), []);
});

Deno.test("warm sandbox: kill -9 of toolhost with a spare waiting leaves nothing", async () => {
  if (skip) return printSkip("warm kill -9", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const holder = join(REPO_ROOT, "tests", "fixtures", "sandbox", "warm_holder.ts");
  const child = spawn(Deno.execPath(), ["run", "-A", holder, ws.root], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = await new Promise<string>((resolve) => {
    let out = "";
    child.stdout!.on("data", (c: Uint8Array) => {
      out += Buffer.from(c).toString();
      if (out.includes("\n")) resolve(out.trim());
    });
    child.once("exit", () => resolve(out.trim()));
  });
  assert.equal(ready, "ready");
  const stateDir = join(ws.root, ".toolhost", "state");
  assert.notDeepEqual(processesIn(ws.root), [], "a spare waits");
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  assert.deepEqual(await gone(ws.root), []);
  assert.equal(callDirKinds(stateDir).journaled.length, 1, "the spare's directory stays");
  const report = await sweepSessions(stateDir);
  assert.equal(report.failed, 0, report.problems.join("\n"));
  assert.equal(existsSync(callsRoot(stateDir)) ? readdirSync(callsRoot(stateDir)).length : 0, 0);
});

Deno.test("warm sandbox: a program replaced since the spare was spawned runs in a new sandbox", async () => {
  if (skip) return printSkip("warm replaced program", skip);
  await using ws = await tempWorkspace(TOML, {
    ...FILES,
    "app/tools/v.sh": { text: "#!/bin/sh\necho v1\n", mode: 0o755 },
  });
  const program = join(ws.root, "app", "tools", "v.sh");
  const { stateDir, c } = await confined(ws.root, "none", {
    executionPaths: ["app/tools/v.sh"],
    program,
  });
  const pool = new WarmPool();
  const call = async () =>
    text(
      await invokePlainCommand({
        command: program,
        template: [],
        properties: [],
        args: {},
        cwd: join(ws.root, "app"),
        stateDir,
        baseEnv: { PATH: "/usr/bin:/bin" },
        confine: c.confine,
        warm: pool,
      }),
    );
  try {
    assert.equal(await call(), "v1\n");
    await pool.settled(); // a spare with v.sh (v1) bound
    writeFileSync(`${program}.new`, "#!/bin/sh\necho v2\n", { mode: 0o755 });
    renameSync(`${program}.new`, program);
    assert.equal(await call(), "v2\n");
    assert.equal(pool.stats.taken, 0, "the stale spare was ended, not used");
    await pool.settled();
    assert.equal(await call(), "v2\n"); // the next spare binds the new file
    assert.equal(pool.stats.taken, 1);
  } finally {
    await pool.close();
  }
});

Deno.test("warm sandbox: timeouts, cancellation, output caps and stderr behave as cold", async () => {
  if (skip) return printSkip("warm run contract", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const { stateDir, c } = await confined(ws.root, "none");
  const pool = new WarmPool();
  const run = async (script: string, warm: boolean, extra: { timeoutMs?: number } = {}) => {
    const ctl = new AbortController();
    const call = (command: string, onSpawn?: () => void) =>
      invokePlainCommand({
        command: "/bin/sh",
        template: ["-c", command],
        properties: [],
        args: {},
        cwd: join(ws.root, "app"),
        stateDir,
        baseEnv: { PATH: "/usr/bin:/bin" },
        confine: c.confine,
        signal: ctl.signal,
        onSpawn,
        ...extra,
        ...(warm ? { warm: pool } : {}),
      });
    if (warm) {
      await call("true"); // leaves a spare (the key is the sandbox, not the command)
      await pool.settled();
    }
    const before = pool.stats.taken;
    const cancel = script.includes("CANCEL")
      ? () => void setTimeout(() => ctl.abort(), 200)
      : undefined;
    const r = await call(script, cancel);
    if (warm) assert.equal(pool.stats.taken, before + 1, `${script}: ran warm`);
    return r;
  };
  const cases: [string, { timeoutMs?: number }][] = [
    // These two deadlines are meant to expire: the result ("timed out after 1000 ms") is
    // the same whether or not the trap was set in time, so a busy machine cannot flip it.
    ["sleep 100", { timeoutMs: 1_000 }],
    ["echo CANCEL; exec sleep 100", {}],
    ["head -c 20000000 /dev/zero", {}],
    ["echo secret-on-stderr >&2; echo out; exit 3", {}],
    ["trap 'exit 7' TERM; sleep 100 & wait", { timeoutMs: 1_000 }],
  ];
  try {
    for (const [script, extra] of cases) {
      const cold = await run(script, false, extra);
      const warm = await run(script, true, extra);
      assert.deepEqual(warm, cold, script);
      assert.doesNotMatch(JSON.stringify(warm), /secret-on-stderr/);
    }
  } finally {
    await pool.close();
  }
  assert.deepEqual(await gone(ws.root), []);
  assert.deepEqual(readdirSync(callsRoot(stateDir)), []);
});

Deno.test("warm sandbox: a working directory gone since the spare was spawned fails as cold", async () => {
  if (skip) return printSkip("warm missing cwd", skip);
  await using ws = await tempWorkspace(TOML, { ...FILES, "app/sub/README.md": "x" });
  const { stateDir, c } = await confined(ws.root, "none");
  const pool = new WarmPool();
  const call = (warm?: WarmPool) =>
    invokePlainCommand({
      command: "/bin/true",
      template: [],
      properties: [],
      args: {},
      cwd: join(ws.root, "app", "sub"),
      stateDir,
      baseEnv: { PATH: "/usr/bin:/bin" },
      confine: c.confine,
      warm,
    });
  try {
    assert.equal((await call(pool)).isError, false);
    await pool.settled();
    renameSync(join(ws.root, "app", "sub"), join(ws.root, "app", "gone"));
    const warm = await call(pool);
    assert.equal(pool.stats.taken, 0, "the spare no longer matched: ended, not used");
    assert.equal(warm.isError, true);
    assert.deepEqual(warm, await call());
  } finally {
    await pool.close();
  }
});

Deno.test("warm sandbox: files made in a bound folder do not make its spare stale", async () => {
  if (skip) return printSkip("warm folder content", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const { stateDir, c } = await confined(ws.root, "read", { scope: ["app"] });
  const pool = new WarmPool();
  const call = async () =>
    text(
      await invokePlainCommand({
        command: "/bin/sh",
        template: ["-c", "cat new.txt 2>/dev/null || echo none"],
        properties: [],
        args: {},
        cwd: join(ws.root, "app"),
        stateDir,
        baseEnv: { PATH: "/usr/bin:/bin" },
        confine: c.confine,
        warm: pool,
      }),
    );
  try {
    assert.equal(await call(), "none\n");
    await pool.settled();
    writeFileSync(join(ws.root, "app", "new.txt"), "made after the spare\n");
    assert.equal(await call(), "made after the spare\n", "the folder's content is live");
    assert.equal(pool.stats.taken, 1);
  } finally {
    await pool.close();
  }
});

Deno.test("warm sandbox: TOOLHOST_WARM_SANDBOXES=0 turns them off; on by default", async () => {
  await using ws = await tempWorkspace(TOML, FILES);
  // Each in a process of its own: the variable is process-wide (tests/sandbox/_warm_switch.ts).
  const off = await switchedRegistry(ws.root, "0", false);
  assert.equal(off.warm, false);
  await off.close();
  const on = await switchedRegistry(ws.root, undefined, false);
  assert.equal(on.warm, waiterShell() !== null);
  const { closedWarm } = await on.close();
  assert.equal(closedWarm, false, "a closed registry has none");
});
