/**
 * Warm spares for unconfined calls (lib/sandbox/warm_pool.ts without a confinement): a
 * dash waiter leading its own session and group, spawned before the call, that reads its
 * call line from stdin and `exec`s the tool. A call that runs in one sees exactly what a
 * cold one (the setsid launcher) sees — environment, argv, working directory, stdin, the
 * descriptor table and signal dispositions — fails alike when its program cannot run,
 * keeps its deadline, cancellation, caps and TERM→KILL escalation, runs a program
 * replaced since the spare was spawned (never the old one), and leaves nothing after a
 * `kill -9` of toolhost once swept.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { Buffer } from "node:buffer";
import { WarmPool } from "../../lib/sandbox/warm_pool.ts";
import { callsRoot } from "../../lib/process/call_dirs.ts";
import { sweepSessions } from "../../lib/sessions/sweep.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, processExists } from "./_corpus.ts";
import { callDirKinds } from "../helpers/made_ahead.ts";
import { switchedRegistry } from "./_warm_switch.ts";
import {
  FILES,
  gone,
  open,
  processesIn,
  shCall,
  skip,
  text,
  TOML,
  warmSecond,
} from "./_warm_host.ts";

Deno.test("warm host spare: a program that cannot run fails as on the cold path", async () => {
  if (skip) return printSkip("warm host unexecutable", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const env = { PATH: "/usr/bin:/bin" };
  const cold = await open(ws.root, false, env);
  const warm = await open(ws.root, true, env);
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

Deno.test("warm host spare: one call per spare, a burst runs cold, idle and close end them", async () => {
  if (skip) return printSkip("warm host lifecycle", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const stateDir = join(ws.root, ".toolhost", "state");
  const pool = new WarmPool({ idleMs: 200 });
  const pids = new Set<string>();
  const call = async () => {
    const r = await shCall(ws.root, "echo $$ $TMPDIR", pool);
    assert.equal(r.isError, false);
    const [pid, tmp] = text(r).trim().split(" ");
    // Removed before the result (the seed: a cleanup failure replaces the result).
    assert.equal(existsSync(dirname(tmp)), false, "the call's dirs outlived it");
    assert.deepEqual(callDirKinds(stateDir).journaled, [], "a call's record outlived it");
    pids.add(pid);
  };
  const spares = () => ({ spawned: pool.stats.spawned, taken: pool.stats.taken });
  for (let i = 0; i < 4; i++) {
    await call();
    await pool.settled(); // a pause, as between an agent's calls
  }
  assert.deepEqual(spares(), { spawned: 4, taken: 3 }, "each call after the first took one");
  for (let i = 0; i < 3; i++) await call(); // back to back: no spawn contends with them
  assert.deepEqual(spares(), { spawned: 4, taken: 4 }, "only the first of the burst");
  assert.equal(pids.size, 7, "a spare serves one call");
  await pool.settled();
  assert.equal(pool.size, 1);
  const kinds = callDirKinds(stateDir);
  assert.deepEqual(kinds.journaled, [], "a waiting spare owns no call dir");
  // At most the next call's set made ahead (it may have idled out already: idleMs 200).
  assert.ok(kinds.madeAhead.length <= 1, "one set made ahead for the next call");
  assert.deepEqual(processesIn(ws.root), [], "a waiting spare is not in the workspace");
  while (pool.size > 0) await new Promise((r) => setTimeout(r, 50));
  await pool.close();
  assert.deepEqual(await gone(ws.root), []);
  assert.deepEqual(readdirSync(callsRoot(stateDir)), []);
  const pool2 = new WarmPool();
  await shCall(ws.root, "true", pool2);
  await pool2.settled();
  assert.equal(pool2.size, 1);
  await pool2.close();
  assert.equal(pool2.size, 0);
  assert.deepEqual(await gone(ws.root), []);
  assert.deepEqual(readdirSync(callsRoot(stateDir)), []);
});

Deno.test("warm pool: back-to-back calls take directories made while the one before ran", async () => {
  if (skip) return printSkip("warm host dirs made ahead", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const stateDir = join(ws.root, ".toolhost", "state");
  const pool = new WarmPool();
  const tmpOf = async () => text(await shCall(ws.root, "echo $TMPDIR", pool)).trim();
  const tmps = new Set<string>();
  try {
    tmps.add(await tmpOf());
    await pool.settled();
    const [ahead] = callDirKinds(stateDir).madeAhead;
    assert.ok(ahead !== undefined, "a set was made while the call ran");
    const second = await tmpOf(); // takes the spare, and the set made ahead
    assert.equal(dirname(second), join(realpathSync(callsRoot(stateDir)), ahead));
    tmps.add(second);
    for (let i = 0; i < 5; i++) tmps.add(await tmpOf()); // back to back
    assert.equal(tmps.size, 7, "each set serves one call");
    assert.ok(pool.stats.dirsTaken >= 2, JSON.stringify(pool.stats));
    for (const t of tmps) assert.equal(existsSync(dirname(t)), false, "a call's dirs outlived it");
    assert.deepEqual(callDirKinds(stateDir).journaled, []);
  } finally {
    await pool.close();
  }
  assert.deepEqual(readdirSync(callsRoot(stateDir)), [], "close removes the set made ahead");
  assert.deepEqual(await gone(ws.root), []);
});

Deno.test("warm host spare: none is spawned while another call starts", async () => {
  if (skip) return printSkip("warm host starting call", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const pool = new WarmPool();
  try {
    await shCall(ws.root, "true", pool);
    await pool.settled();
    assert.equal(pool.size, 1);
    pool.enter(); // a call that never runs warm (resource limits) starts
    assert.equal((await shCall(ws.root, "true", pool)).isError, false);
    await pool.settled();
    assert.equal(pool.size, 0, "no spawn contends with the starting call");
    assert.deepEqual([pool.stats.spawned, pool.stats.taken], [1, 1]);
    pool.started(); // its tool runs
    pool.leave(true);
    await shCall(ws.root, "true", pool);
    await pool.settled();
    assert.deepEqual([pool.stats.spawned, pool.stats.taken], [2, 1]);
  } finally {
    await pool.close();
  }
  assert.deepEqual(await gone(ws.root), []);
});

/** Start the holder fixture on `root` and wait for its `ready` (or what it printed). */
async function holder(root: string, hang: boolean) {
  const path = join(REPO_ROOT, "tests", "fixtures", "sandbox", "warm_host_holder.ts");
  const child = spawn(Deno.execPath(), ["run", "-A", path, root, ...(hang ? ["--hang"] : [])], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const said = await new Promise<string>((resolve) => {
    let out = "";
    child.stdout!.on("data", (c: Uint8Array) => {
      out += Buffer.from(c).toString();
      if (out.includes("\n")) resolve(out.trim());
    });
    child.once("exit", () => resolve(out.trim()));
  });
  return { child, said };
}

/** Live processes that are the holder's children (its spares). */
function childrenOf(pid: number): number[] {
  return readdirSync("/proc").filter((n) => /^\d+$/.test(n)).map(Number).filter((p) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "latin1");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
    } catch {
      return false;
    }
  });
}

/** The holder's children that run the spare's waiting shell. */
function waitingSpares(pid: number): number[] {
  return childrenOf(pid).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, "latin1").includes("read -r _th_p");
    } catch {
      return false;
    }
  });
}

Deno.test("warm host spare: kill -9 of toolhost with a spare waiting leaves nothing", async () => {
  if (skip) return printSkip("warm host kill -9", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const { child, said } = await holder(ws.root, false);
  assert.equal(said, "ready");
  // The spare is spawned when `ready` is printed, but may not have run its shell yet (its
  // command line is still toolhost's until exec): wait for it (bounded), not for a clock.
  let spares = waitingSpares(child.pid!);
  for (let i = 0; i < 1200 && spares.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 50));
    spares = waitingSpares(child.pid!);
  }
  assert.equal(spares.length, 1, "a spare waits");
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  for (let i = 0; i < 600 && spares.some(processExists); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(spares.filter(processExists), [], "the spare read end-of-file and left");
  const stateDir = join(ws.root, ".toolhost", "state");
  assert.equal((await sweepSessions(stateDir)).failed, 0);
  assert.equal(existsSync(callsRoot(stateDir)) ? readdirSync(callsRoot(stateDir)).length : 0, 0);
});

Deno.test("warm host spare: kill -9 of toolhost mid-call: the sweep ends the tool it runs", async () => {
  if (skip) return printSkip("warm host kill -9 mid-call", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const { child, said } = await holder(ws.root, true);
  assert.equal(said, "ready", "the hanging call ran in the spare");
  const tool = Number(readFileSync(join(ws.root, "app", "hang.pid"), "utf8"));
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  const stateDir = join(ws.root, ".toolhost", "state");
  assert.ok(processExists(tool), "the journaled tool outlived toolhost until the sweep");
  const kinds = callDirKinds(stateDir);
  assert.equal(kinds.journaled.length, 1, "the call's journal stays");
  const report = await sweepSessions(stateDir);
  assert.equal(report.failed, 0, report.problems.join("\n"));
  // Its call, and the next call's directories made ahead (nothing ran in them).
  assert.equal(report.calls, 1 + kinds.madeAhead.length);
  assert.deepEqual(await gone(ws.root), []);
  assert.equal(processExists(tool), false);
  assert.equal(existsSync(callsRoot(stateDir)) ? readdirSync(callsRoot(stateDir)).length : 0, 0);
});

Deno.test("warm host spare: a program replaced since the spare was spawned is the one run", async () => {
  if (skip) return printSkip("warm host replaced program", skip);
  await using ws = await tempWorkspace(TOML, {
    ...FILES,
    "app/tools/v.sh": { text: "#!/bin/sh\necho v1\n", mode: 0o755 },
  });
  const program = join(ws.root, "app", "tools", "v.sh");
  const pool = new WarmPool();
  const call = async () =>
    text(await shCall(ws.root, "", pool, { command: program, template: [] }));
  try {
    assert.equal(await call(), "v1\n");
    await pool.settled();
    writeFileSync(`${program}.new`, "#!/bin/sh\necho v2\n", { mode: 0o755 });
    renameSync(`${program}.new`, program);
    assert.equal(await call(), "v2\n");
    assert.equal(pool.stats.taken, 1, "the spare ran the program found at the call");
  } finally {
    await pool.close();
  }
});

Deno.test("warm host spare: the working directory is the one found at the call", async () => {
  if (skip) return printSkip("warm host replaced cwd", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const pool = new WarmPool();
  const script = "cat marker 2>/dev/null; pwd -P";
  try {
    const app = Deno.realPathSync(join(ws.root, "app"));
    assert.equal(text(await shCall(ws.root, script, pool)), `${app}\n`);
    await pool.settled();
    renameSync(join(ws.root, "app"), join(ws.root, "old"));
    Deno.mkdirSync(join(ws.root, "app"));
    writeFileSync(join(ws.root, "app", "marker"), "new\n");
    assert.equal(text(await shCall(ws.root, script, pool)), `new\n${app}\n`);
    assert.equal(pool.stats.taken, 1);
    await pool.settled();
    Deno.removeSync(join(ws.root, "app"), { recursive: true });
    const cold = await shCall(ws.root, script);
    assert.equal(cold.isError, true);
    assert.deepEqual(await shCall(ws.root, script, pool), cold, "a missing cwd fails as cold");
    assert.equal(pool.stats.taken, 2, "taken, then refused before its handover");
  } finally {
    await pool.close();
  }
});

Deno.test("warm host spare: timeouts, cancellation, caps, stderr and TERM traps behave as cold", async () => {
  if (skip) return printSkip("warm host run contract", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const pool = new WarmPool();
  const run = async (script: string, warm: boolean, extra: { timeoutMs?: number } = {}) => {
    const ctl = new AbortController();
    if (warm) {
      await shCall(ws.root, "true", pool); // leaves a spare (the key is the cwd)
      await pool.settled();
    }
    const before = pool.stats.taken;
    const onSpawn = script.includes("CANCEL")
      ? () => void setTimeout(() => ctl.abort(), 200)
      : undefined;
    const r = await shCall(ws.root, script, warm ? pool : undefined, {
      signal: ctl.signal,
      onSpawn,
      ...extra,
    });
    if (warm) assert.equal(pool.stats.taken, before + 1, `${script}: ran warm`);
    return r;
  };
  const cases: [string, { timeoutMs?: number }][] = [
    // Deadlines meant to expire: the result is the same whether or not the trap was set.
    ["sleep 100", { timeoutMs: 1_000 }],
    ["echo CANCEL; exec sleep 100", {}],
    ["head -c 20000000 /dev/zero", {}],
    ["echo secret-on-stderr >&2; echo out; exit 3", {}],
    ["trap 'exit 7' TERM; sleep 100 & wait", { timeoutMs: 1_000 }],
    ["trap '' TERM; sleep 100", { timeoutMs: 1_000, graceMs: 1_000 } as { timeoutMs: number }],
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
  assert.deepEqual(readdirSync(callsRoot(join(ws.root, ".toolhost", "state"))), []);
});

Deno.test("warm host spare: TOOLHOST_WARM_SANDBOXES=0 turns them off", async () => {
  if (skip) return printSkip("warm host off switch", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  // In a process of its own: the variable is process-wide (tests/sandbox/_warm_switch.ts).
  const off = await switchedRegistry(ws.root, "0", true);
  try {
    assert.equal(off.warm, false);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(processesIn(ws.root), [], "no spare was spawned");
    const calls = callsRoot(off.stateDir);
    assert.deepEqual(existsSync(calls) ? readdirSync(calls) : [], []);
  } finally {
    await off.close();
  }
});
