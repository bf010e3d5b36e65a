/**
 * A confined call keeps the SIGTERM-then-SIGKILL contract of an unconfined one: on a
 * timeout or a cancel, every process inside the sandbox — its first process and one that
 * left the process group with setsid — gets SIGTERM before the sandbox ends (bwrap
 * forwards no signal, so toolhost must signal inside the namespace itself); one that
 * ignores SIGTERM still ends after the grace; a `/proc` scan for the marker finds 0
 * processes afterwards. The tool (tests/fixtures/sandbox/grace.sh) writes a file in a
 * host folder it may write (`sandbox_write`) from its SIGTERM trap.
 */

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { markerGone, printSkip, skipReason } from "./_corpus.ts";

const GRACE_SH = readFileSync(`${REPO_ROOT}/tests/fixtures/sandbox/grace.sh`, "utf8");

function manifest(timeoutMs: number, dir: string): string {
  return `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.grace]
description = "Trap SIGTERM."
protocol = "plain"
command = "tools/grace.sh"
args = ["{mode}", "{dir}", "{mark}"]
input_schema = { type = "object", properties = { mode = { type = "string" }, dir = { type = "string" }, mark = { type = "string" } }, required = ["mode", "dir", "mark"] }
sandbox = "none"
sandbox_write = ["${dir}"]
timeout_ms = ${timeoutMs}
`;
}

function text(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

/** One call of the tool in `mode`; `during` runs once the tool is ready (or never). */
async function callGrace(
  mode: "exit" | "ignore",
  timeoutMs: number,
  during?: (abort: () => void) => void,
) {
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "toolhost_grace_" }));
  await using ws = await tempWorkspace(manifest(timeoutMs, dir), {
    "app/README.md": "# app\n",
    "app/tools/grace.sh": { text: GRACE_SH, mode: 0o755 },
  });
  const mark = `THMARK${crypto.randomUUID().replaceAll("-", "")}`;
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    stateDir: `${ws.root}/.toolhost/state`,
    env: { PATH: "/usr/bin:/bin" },
  });
  const ctl = new AbortController();
  let watching = true;
  const watch = (async () => {
    while (watching && !existsSync(`${dir}/ready`)) await new Promise((r) => setTimeout(r, 20));
    if (watching) during?.(() => ctl.abort());
  })();
  try {
    const t0 = Date.now();
    const r = await reg.call("grace_app", { mode, dir, mark }, { signal: ctl.signal });
    watching = false;
    await watch;
    const ready = existsSync(`${dir}/ready`) ? statSync(`${dir}/ready`).mtimeMs : undefined;
    const files = readdirSync(dir);
    return { r, t0, ready, files, left: await markerGone(mark) };
  } finally {
    watching = false;
    await reg.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const skip = skipReason();

for (const mode of ["exit", "ignore"] as const) {
  Deno.test(`timeout: a confined tool (${mode} on SIGTERM) is warned in every process, then ends`, async () => {
    if (skip) return printSkip(`grace on timeout (${mode})`, skip);
    // The deadline must find the tool's traps set. The timer starts after the spawn, so
    // a ready file written (per its mtime, which may lag a clock tick) well before
    // t0 + timeout proves they were; otherwise, on a loaded machine, try a longer one.
    for (const timeoutMs of [3000, 12_000, 48_000]) {
      const { r, t0, ready, files, left } = await callGrace(mode, timeoutMs);
      assert.deepEqual(left, [], "processes outlived the call");
      assert.equal(r.isError, true);
      assert.match(text(r), /timed out/);
      if (ready === undefined || ready + 50 >= t0 + timeoutMs) continue;
      assert.ok(files.includes("main_term"), `the tool got no SIGTERM: ${files}`);
      assert.ok(files.includes("child_term"), `a setsid child got no SIGTERM: ${files}`);
      return;
    }
    assert.fail("the tool never got ready before its deadline");
  });
}

Deno.test("cancel: a confined tool is warned in every process, then ends", async () => {
  if (skip) return printSkip("grace on cancel", skip);
  let aborted = false;
  const { r, files, left } = await callGrace("ignore", 600_000, (abort) => {
    aborted = true;
    abort();
  });
  assert.equal(aborted, true);
  assert.equal(r.isError, true);
  assert.deepEqual(left, [], "processes outlived the call");
  assert.ok(files.includes("main_term"), `the tool got no SIGTERM: ${files}`);
  assert.ok(files.includes("child_term"), `a setsid child got no SIGTERM: ${files}`);
});
