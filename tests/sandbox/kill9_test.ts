/**
 * `kill -9` of toolhost mid-call: a confined tool (and a confined session with a bound
 * call in flight) whose processes left the group with setsid — nothing survives toolhost
 * (`--die-with-parent` ends each sandbox, and with it its PID namespace). A `/proc`
 * scan for the marker finds 0 processes afterwards. Also `kill -9` at the first sight
 * of the sandbox, while bwrap is still setting it up: `--die-with-parent` is not armed
 * yet then (bubblewrap #633), and the dead man's switch (lib/process/dead_man.ts) must
 * end it.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { cliCommand, REPO_ROOT } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { CONTAIN_SH, markerGone, markerProcesses, printSkip, skipReason } from "./_corpus.ts";

const HARNESS = readFileSync(`${REPO_ROOT}/tests/fixtures/sandbox/web_harness.mjs`, "utf8");

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.contain]
description = "Try to outlive toolhost."
protocol = "plain"
command = "tools/contain.sh"
args = ["{case}", "{mark}"]
input_schema = { type = "object", properties = { case = { type = "string" }, mark = { type = "string" } }, required = ["case", "mark"] }
sandbox = "none"
timeout_ms = 600000

[artifacts.app.views.agent_sessions.web]
start = { command = "tools/web_harness.mjs", args = ["start", "mark"], execution_paths = ["app/tools"] }
stop = { command = "tools/web_harness.mjs", args = ["stop"], execution_paths = ["app/tools"] }
sandbox = "read"

[artifacts.app.views.agent_tools.slow]
session = "web"
description = "Hang."
protocol = "plain"
command = "tools/web_harness.mjs"
args = ["slow"]
timeout_ms = 600000
execution_paths = ["app/tools"]
`;

const FILES = {
  "app/README.md": "# app\n",
  "app/tools/contain.sh": { text: CONTAIN_SH, mode: 0o755 },
  "app/tools/web_harness.mjs": { text: HARNESS, mode: 0o755 },
};

/** Processes of the tool itself: the marked ones that are not bwrap's own. */
function toolProcesses(mark: string): number[] {
  return markerProcesses(mark).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "latin1").trim() !== "bwrap";
    } catch {
      return false;
    }
  });
}

async function killMidCall(
  tool: string,
  args: Record<string, string>,
  mark: string,
  want: number,
  count: (mark: string) => number[] = toolProcesses,
) {
  await using ws = await tempWorkspace(TOML, FILES);
  const child = cliCommand(
    [
      "tools",
      "call",
      tool,
      "--eval",
      "app/review",
      "--repo",
      ws.root,
      "--args",
      JSON.stringify(args),
    ],
    { env: { PATH: "/usr/bin:/bin", ATTACK_MARK: mark }, stdout: "null", stderr: "null" },
  ).spawn();
  // Wait for the condition (the marked processes run), not for a clock.
  // toolhost's own command line carries the mark too (in --args): not one of them.
  while (count(mark).filter((pid) => pid !== child.pid).length < want) {
    const done = await Promise.race([
      child.status.then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), 50)),
    ]);
    assert.equal(done, false, "the call ended before its processes started");
  }
  child.kill("SIGKILL");
  await child.status;
  assert.deepEqual(await markerGone(mark), [], "processes outlived a kill -9 of toolhost");
}

const skip = skipReason();

Deno.test("kill -9 of toolhost mid-call: a confined tool's setsid'd processes end with it", async () => {
  if (skip) return printSkip("kill -9 (tool)", skip);
  const mark = `THMARK${crypto.randomUUID().replaceAll("-", "")}`;
  await killMidCall("contain_app", { case: "sleeper", mark }, mark, 2);
});

Deno.test("kill -9 of toolhost mid-call: a confined session and its bound call end with it", async () => {
  if (skip) return printSkip("kill -9 (session)", skip);
  const mark = `THMARK${crypto.randomUUID().replaceAll("-", "")}`;
  // The harness's setsid'd sleeper, and the bound call's sleeper.
  await killMidCall("slow_app", {}, mark, 2);
});

Deno.test("kill -9 of toolhost at the first sight of its sandbox: nothing outlives it", async () => {
  if (skip) return printSkip("kill -9 (sandbox set-up)", skip);
  // Three times: each lands somewhere else in bwrap's set-up.
  for (let i = 0; i < 3; i++) {
    const mark = `THMARK${crypto.randomUUID().replaceAll("-", "")}`;
    await killMidCall("contain_app", { case: "sleeper", mark }, mark, 1, markerProcesses);
  }
});
