/**
 * The adversary's version of several MCP clients on one repository: `toolhost serve`
 * processes (each an MCP client's) and a `tools call` from a terminal, on one workspace and
 * one state directory, with long calls held open by a condition (a release file), session
 * calls, serves started while others are mid-call, a serve and the terminal call SIGKILLed
 * mid-call, and decoys planted in the state directory beforehand:
 *
 * - a dead owner's call folder and session root whose journals name an unrelated live
 *   process with its real pid, start time and boot id (a pid reused since) but another
 *   tag, each journal ending in a line torn by a kill;
 *
 * Checked: every live serve's held call still finds its own TMPDIR and output directory
 * when released (no sweep removed them) and answers its own value; a live serve's tool
 * process is never ended by another's sweep, while the SIGKILLed terminal call's and the
 * SIGKILLed serve's tools are ended by the next sweep; the decoy is never signalled; no
 * call hangs; every serve closes cleanly; nothing is left in the state directory and no
 * process runs in the workspace afterwards.
 *
 * Every wait is for a condition, with a generous bound (a busy 2-core machine).
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { newGroupTag } from "../../lib/process/escape_reaper.ts";
import { currentBootId, readProcStat } from "../../lib/process/proc_identity.ts";
import { sweepSessions } from "../../lib/sessions/sweep.ts";
import { cliCommand, runProcess } from "../helpers/cli.ts";
import { tempWorkspace, toolTable } from "../helpers/workspace.ts";
import { admitLine, assertNeverSignalled, DEAD_OWNER, spawnVictim } from "./_forge.ts";
import { HARNESS, isRunning, sessionToml } from "./_helpers.ts";
import { processesIn, Serve, waitFor } from "./_serve_client.ts";

/** Records itself, writes into its directories, waits for `../release`, reads them back. */
const HOLD = `#!/bin/sh
echo "$1" > "$TMPDIR/v" || exit 3
echo "$1" > "$TOOLHOST_ARTIFACT_DIR/v" || exit 4
echo "$1" > "../marks/$$"
i=0
while [ ! -e ../release ]; do
  sleep 0.05
  i=$((i + 1))
  [ "$i" -gt 6000 ] && exit 9
done
[ "$(cat "$TOOLHOST_ARTIFACT_DIR/v")" = "$1" ] || exit 5
cat "$TMPDIR/v"
`;

const QUICK = `#!/bin/sh
printf '%s' "$1"
`;

const VALUE = {
  type: "object",
  properties: { value: { type: "string" } },
  required: ["value"],
  additionalProperties: false,
};

function adversaryToml(): string {
  const plain = (command: string) => ({
    description: "A fixture tool.",
    protocol: "plain",
    command,
    args: ["{value}"],
    timeout_ms: 600_000,
    input_schema: VALUE,
  });
  return sessionToml() + toolTable("app", "hold", plain("./hold.sh")) +
    toolTable("app", "quick", plain("./quick.sh"));
}

/** The marks written so far: tool pid → the value it was called with. */
function marks(dir: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const name of readdirSync(dir)) {
    if (!/^\d+$/.test(name)) continue;
    const text = readFileSync(join(dir, name), "utf8").trim();
    if (text !== "") found.set(Number(name), text);
  }
  return found;
}

function pidOf(dir: string, value: string): number | undefined {
  for (const [pid, v] of marks(dir)) if (v === value) return pid;
  return undefined;
}

/** Plant a dead owner's folder naming `victim` (a pid reused since) under another tag. */
function plantReusedPid(state: string, folder: "calls" | "sessions", name: string, pid: number) {
  const startTime = readProcStat(pid)!.startTime;
  const entry = admitLine({
    pid,
    pgid: pid,
    startTime,
    bootId: currentBootId(),
    tag: newGroupTag(),
  });
  const root = join(state, folder, name);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  writeFileSync(join(root, "owner.json"), JSON.stringify(DEAD_OWNER));
  if (folder === "sessions") writeFileSync(join(root, "lease"), "active\n");
  writeFileSync(join(root, "journal.jsonl"), `${entry}\n{"op":"admit","role":"call","pid":`);
}

async function hold(serve: Serve, value: string): Promise<string> {
  return await serve.call("hold_app", value);
}

Deno.test({
  name:
    "serves and a terminal call on one state dir, started and SIGKILLed mid-call: no live call loses its folders or processes, no decoy is signalled",
  async fn() {
    const ws = await tempWorkspace(adversaryToml(), {
      "app/harness.sh": { text: HARNESS, mode: 0o755 },
      "app/hold.sh": { text: HOLD, mode: 0o755 },
      "app/quick.sh": { text: QUICK, mode: 0o755 },
      "app/README.md": "# app\n",
      "marks/.keep": "",
    });
    const state = join(ws.root, ".toolhost/state");
    const dir = join(ws.root, "marks");
    const victim = await spawnVictim();
    plantReusedPid(state, "calls", "0123456789abcdef01234567", victim.record.pid);
    plantReusedPid(state, "sessions", "0123456789abcdef", victim.record.pid);
    const serves: Serve[] = [];
    const terminal = cliCommand(
      ["tools", "call", "hold_app", "--eval", "app/review", "--args", '{"value":"terminal"}'],
      { cwd: ws.root, stdout: "null", stderr: "null" },
    ).spawn();
    try {
      const [a, b] = [new Serve(ws.root), new Serve(ws.root)];
      serves.push(a, b);
      await Promise.all(serves.map((s) => s.init()));
      // Held calls on both, and session calls alongside.
      const heldA = hold(a, "held-a");
      const heldB = hold(b, "held-b");
      const bSettled = Promise.race([heldB, b.child.status.then(() => "killed")]);
      const puts = [a.call("put_app", "pa"), b.call("put_app", "pb")];
      await waitFor(
        () => ["held-a", "held-b", "terminal"].every((v) => pidOf(dir, v) !== undefined),
        "the held tools to run",
      );
      const [pidA, pidB, pidT] = ["held-a", "held-b", "terminal"].map((v) => pidOf(dir, v)!);
      // The terminal call is killed mid-call: its tool outlives it.
      terminal.kill("SIGKILL");
      await terminal.status;
      assert.ok(isRunning(pidT), "precondition: the killed terminal call's tool runs on");
      // A third serve starts mid-call (its start-up sweep runs on its first listing), and
      // `toolhost sweep` and an in-process sweep run alongside.
      const c = new Serve(ws.root);
      serves.push(c);
      await c.init();
      await c.request("tools/list", {});
      const [quick, swept, inProcess] = await Promise.all([
        c.call("quick_app", "q-c"),
        runProcess(["sweep", "--json"], { cwd: ws.root }),
        sweepSessions(state),
      ]);
      assert.equal(quick, "q-c");
      assert.equal(swept.code, 0, swept.out + swept.err);
      assert.ok(!swept.err.includes("    at "), "toolhost sweep printed a stack trace");
      assert.ok(inProcess.problems.every((p) => !p.includes("could not be cleaned")));
      await waitFor(() => !isRunning(pidT), "the killed terminal call's tool to be ended");
      assert.ok(isRunning(pidA) && isRunning(pidB), "a live serve's held tool was ended");
      for (const p of await Promise.all(puts)) assert.ok(!p.startsWith("error:"), p);
      // Serve b is SIGKILLed mid-call; a fourth starts and sweeps.
      await b.kill();
      assert.equal(await bSettled, "killed");
      const d = new Serve(ws.root);
      serves.push(d);
      await d.init();
      await d.request("tools/list", {});
      assert.equal(await d.call("quick_app", "q-d"), "q-d");
      const again = await runProcess(["sweep", "--json"], { cwd: ws.root });
      assert.equal(again.code, 0, again.out + again.err);
      await waitFor(() => !isRunning(pidB), "the killed serve's held tool to be ended");
      assert.ok(isRunning(pidA), "a live serve's held tool was ended by another's sweep");
      // Released: the live held call still has its own folders and answers.
      writeFileSync(join(ws.root, "release"), "");
      assert.equal(await heldA, "held-a");
      assert.ok(!(await a.call("put_app", "pa2")).startsWith("error:"), "a session call failed");
      for (const s of serves.splice(0).filter((s) => s !== b)) {
        const status = await s.close();
        assert.ok(!s.stderr.includes("    at "), `a serve printed a stack trace: ${s.stderr}`);
        assert.equal(status.code, 0, `a serve did not close cleanly: ${s.stderr}`);
      }
      const last = await runProcess(["sweep", "--json"], { cwd: ws.root });
      assert.equal(last.code, 0, last.out);
      await waitFor(() => processesIn(ws.root).length === 0, "the workspace's processes to end");
      // Folders made but never claimed by a killed toolhost wait a minute; none runs now.
      const ownerless = await sweepSessions(state, { ownerlessAgeMs: 0 });
      assert.equal(ownerless.failed, 0, ownerless.problems.join("\n"));
      for (const kind of ["calls", "sessions", "artifacts"]) {
        const folder = join(state, kind);
        assert.deepEqual(existsSync(folder) ? readdirSync(folder) : [], [], `${kind} left`);
      }
    } finally {
      for (const s of serves) await s.kill();
      try {
        terminal.kill("SIGKILL");
      } catch { /* already gone */ }
      await terminal.status;
      writeFileSync(join(ws.root, "release"), "");
      await assertNeverSignalled(victim, "a decoy naming a reused pid was signalled");
      await ws.cleanup();
    }
  },
});

Deno.test("toolhosts creating one state directory at the same moment all run their calls", async () => {
  const ws = await tempWorkspace(adversaryToml(), {
    "app/harness.sh": { text: HARNESS, mode: 0o755 },
    "app/hold.sh": { text: HOLD, mode: 0o755 },
    "app/quick.sh": { text: QUICK, mode: 0o755 },
    "app/README.md": "# app\n",
  });
  try {
    const state = join(ws.root, ".toolhost/state");
    assert.ok(!existsSync(join(ws.root, ".toolhost")), "precondition: no state directory yet");
    const call = (tool: string, value: string) =>
      runProcess(
        ["tools", "call", tool, "--eval", "app/review", "--args", JSON.stringify({ value })],
        { cwd: ws.root },
      );
    const runs = await Promise.all([
      call("quick_app", "q1"),
      call("quick_app", "q2"),
      call("put_app", "p1"),
      call("put_app", "p2"),
    ]);
    for (const r of runs) assert.equal(r.code, 0, r.out + r.err);
    assert.match(runs[0].out, /q1/);
    assert.match(runs[1].out, /q2/);
    assert.equal(Deno.statSync(state).mode! & 0o777, 0o700);
    for (const kind of ["calls", "sessions", "artifacts"]) {
      const folder = join(state, kind);
      assert.deepEqual(existsSync(folder) ? readdirSync(folder) : [], [], `${kind} left`);
    }
    await waitFor(() => processesIn(ws.root).length === 0, "the workspace's processes to end");
  } finally {
    await ws.cleanup();
  }
});
