/**
 * Several `toolhost serve` processes (the real CLI over stdio, as MCP clients start them) on
 * one workspace and one state directory, hammered with command calls and bound session
 * calls while `toolhost sweep` runs alongside, and one of them SIGKILLed mid-call each
 * round and replaced. Every serve's start-up sweep, every session start's sweep and every
 * `toolhost sweep` meets the other serves' live call directories, session roots, warm
 * directories and artifact stores, and the killed ones' leftovers.
 *
 * Checked: (a) every call of a live serve succeeds with its own answer — its tool writes
 * into its TMPDIR and output directory and reads its write back, so a call directory
 * removed under it fails the call; (b) no live serve dies; (c) once the live serves are
 * closed and one last sweep ran, nothing is left in the state directory and no process
 * runs in the workspace; (d) concurrent sweeps of the same dead serve never fail and never
 * print a stack trace.
 *
 * Bounded rounds; every wait is for a condition, with a generous bound.
 */

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { runProcess } from "../helpers/cli.ts";
import { processesIn, Serve, waitFor } from "./_serve_client.ts";
import { tempWorkspace, toolTable } from "../helpers/workspace.ts";
import { HARNESS, sessionToml } from "./_helpers.ts";
import { sweepSessions } from "../../lib/sessions/sweep.ts";

const SERVES = 3;
const ROUNDS = 4;
const CALLS_PER_ROUND = 4;

/** Writes into its TMPDIR and output dir, records its pid, waits a moment, answers. */
const WORK = `#!/bin/sh
set -e
echo "$1" > "$TMPDIR/v"
echo "$1" > "$TOOLHOST_OUTPUT_DIR/v" 2>/dev/null || true
: > "../marks/$$"
sleep 0.2
cat "$TMPDIR/v"
`;

function stressToml(): string {
  return sessionToml() + toolTable("app", "work", {
    description: "Work in the call's directories.",
    protocol: "plain",
    command: "./work.sh",
    args: ["{value}"],
    input_schema: {
      type: "object",
      properties: { value: { type: "string" } },
      required: ["value"],
      additionalProperties: false,
    },
  });
}

function left(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** What is left in a state folder, each entry with what it holds (for a useful failure). */
function described(dir: string): string[] {
  return left(dir).map((name) => {
    const path = join(dir, name);
    let inside: string[];
    try {
      inside = readdirSync(path);
    } catch {
      return `${name} (not a folder)`;
    }
    const owner = join(path, "owner.json");
    const text = existsSync(owner) ? readFileSync(owner, "utf8").trim() : "no owner";
    const age = Date.now() - statSync(path).mtimeMs;
    return `${name}: [${inside.join(", ")}] ${text}, ${Math.round(age)} ms old`;
  });
}

/** One round on every serve: calls of both kinds at once; `victim` is killed mid-call. */
async function round(serves: Serve[], victim: Serve, r: number, marks: string): Promise<void> {
  const before = new Set(left(marks));
  const results: Promise<void>[] = [];
  for (const [s, serve] of serves.entries()) {
    for (let c = 0; c < CALLS_PER_ROUND; c++) {
      const value = `r${r}-s${s}-c${c}`;
      const tool = c % 2 === 0 ? "work_app" : "put_app";
      const p = serve.call(tool, value).then((text) => {
        if (serve === victim) return; // killed mid-call: any answer, or none
        if (tool === "work_app") assert.equal(text, value, `a live serve's call failed`);
        else assert.ok(!text.startsWith("error:"), `a live serve's bound call failed: ${text}`);
      });
      results.push(serve === victim ? Promise.race([p, victim.child.status.then(() => {})]) : p);
    }
  }
  const sweep = runProcess(["sweep", "--json"], { cwd: join(marks, "..") });
  // And this process sweeps back to back meanwhile (another toolhost, in-process).
  let calling = true;
  const sweeping = (async () => {
    let problems: string[] = [];
    for (let n = 0; calling && n < 500; n++) {
      const report = await sweepSessions(join(marks, "..", ".toolhost/state"));
      if (report.failed > 0) problems = problems.concat(report.problems);
    }
    return problems;
  })();
  // Mid-call: once a tool of this round runs (one of the victim's, or any).
  await waitFor(() => left(marks).some((m) => !before.has(m)), "a tool to start");
  await victim.kill();
  await Promise.all(results).finally(() => calling = false);
  assert.deepEqual(await sweeping, [], "a sweep alongside failed");
  const swept = await sweep;
  assert.ok(!swept.err.includes("    at "), `toolhost sweep printed a stack trace`);
  assert.equal(swept.code, 0, `a concurrent toolhost sweep failed: ${swept.out}`);
}

Deno.test({
  name:
    "serves sharing a state dir, sweeps alongside, one SIGKILLed per round: live calls all succeed, nothing is left",
  async fn() {
    const ws = await tempWorkspace(stressToml(), {
      "app/harness.sh": { text: HARNESS, mode: 0o755 },
      "app/work.sh": { text: WORK, mode: 0o755 },
      "app/README.md": "# app\n",
      "marks/.keep": "",
    });
    const state = join(ws.root, ".toolhost/state");
    const marks = join(ws.root, "marks");
    const serves: Serve[] = [];
    try {
      for (let i = 0; i < SERVES; i++) serves.push(new Serve(ws.root));
      await Promise.all(serves.map((s) => s.init()));
      for (let r = 0; r < ROUNDS; r++) {
        const victim = serves[r % SERVES];
        await round(serves, victim, r, marks);
        const fresh = new Serve(ws.root);
        await fresh.init();
        serves[r % SERVES] = fresh;
        for (const s of serves) assert.equal(s.child.pid > 0, true);
      }
      // (b) The serves that were never killed are all still answering.
      const answers = await Promise.all(serves.map((s, i) => s.call("work_app", `last-${i}`)));
      assert.deepEqual(answers, serves.map((_, i) => `last-${i}`));
      for (const s of serves.splice(0)) {
        const status = await s.close();
        assert.ok(!s.stderr.includes("    at "), `a serve printed a stack trace: ${s.stderr}`);
        assert.equal(status.code, 0, `a serve did not close cleanly: ${s.stderr}`);
      }
      // (c) One last sweep ends what the killed serves left.
      const last = await runProcess(["sweep", "--json"], { cwd: ws.root });
      assert.equal(last.code, 0, last.out);
      await waitFor(() => processesIn(ws.root).length === 0, "the workspace's processes to end");
      // A serve killed between making a folder and recording itself in it left a folder
      // with no owner record, which sweeps leave alone for a minute (it may be being made);
      // with every toolhost gone, it is stale at once.
      const ownerless = await sweepSessions(state, { ownerlessAgeMs: 0 });
      assert.equal(ownerless.failed, 0, ownerless.problems.join("\n"));
      for (const kind of ["calls", "sessions", "artifacts"]) {
        assert.deepEqual(described(join(state, kind)), [], `${kind} left behind`);
      }
    } finally {
      for (const s of serves) await s.kill();
      await ws.cleanup();
    }
  },
});
