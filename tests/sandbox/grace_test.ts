/**
 * A confined call keeps the SIGTERM-then-SIGKILL contract of an unconfined one: on a
 * timeout or a cancel, every process inside the sandbox — its first process and one that
 * left the process group with setsid — gets SIGTERM before the sandbox ends (bwrap
 * forwards no signal, so toolhost must signal inside the namespace itself); one that
 * ignores SIGTERM still ends after the grace; a `/proc` scan for the marker finds 0
 * processes afterwards. The tool (tests/fixtures/sandbox/grace.sh) writes a file in a
 * host folder it may write (`sandbox_write`) from its SIGTERM trap. The same holds for a
 * confined session's harness when the session closes, and for a confined extension
 * server (and what it started) when its connection closes.
 */

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { evalToolSource } from "../../lib/mcp/tool_source.ts";
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

function sessionManifest(dir: string, mark: string): string {
  const cmd = (p: string, args: string[]) =>
    `{ command = "${p}", args = ${JSON.stringify(args)}, execution_paths = ["app/tools"] }`;
  return `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_sessions.s]
start = ${cmd("tools/grace.sh", ["exit", dir, mark])}
stop = ${cmd("tools/noop.sh", [])}
sandbox = "none"
sandbox_write = ["${dir}"]

[artifacts.app.views.agent_tools.noop]
session = "s"
description = "Start the session."
protocol = "plain"
command = "tools/noop.sh"
args = []
execution_paths = ["app/tools"]
`;
}

Deno.test("session close: a confined harness is warned in every process, then ends", async () => {
  if (skip) return printSkip("grace on session close", skip);
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "toolhost_grace_" }));
  const mark = `THMARK${crypto.randomUUID().replaceAll("-", "")}`;
  await using ws = await tempWorkspace(sessionManifest(dir, mark), {
    "app/README.md": "# app\n",
    "app/tools/grace.sh": { text: GRACE_SH, mode: 0o755 },
    "app/tools/noop.sh": { text: "#!/bin/sh\necho ok\n", mode: 0o755 },
  });
  try {
    const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
      stateDir: `${ws.root}/.toolhost/state`,
      env: { PATH: "/usr/bin:/bin" },
    });
    try {
      const r = await reg.call("noop_app", {});
      assert.equal(r.isError, false, text(r));
      assert.ok(existsSync(`${dir}/ready`), "the harness was not ready");
    } finally {
      await reg.close();
    }
    const files = readdirSync(dir);
    assert.ok(files.includes("main_term"), `the harness got no SIGTERM: ${files}`);
    assert.ok(files.includes("child_term"), `a setsid child got no SIGTERM: ${files}`);
    assert.deepEqual(await markerGone(mark), [], "processes outlived the session");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("extension close: a confined server is warned in every process, then ends", async () => {
  if (skip) return printSkip("grace on extension close", skip);
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "toolhost_grace_" }));
  const mark = `THMARK${crypto.randomUUID().replaceAll("-", "")}`;
  const toml = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"
extensions = ["srv"]

[extensions.srv]
command = "app/tools/attack_server.mjs"
sandbox = "read"
sandbox_write = ["${dir}"]
`;
  await using ws = await tempWorkspace(toml, {
    "app/README.md": "# app\n",
    "app/tools/grace.sh": { text: GRACE_SH, mode: 0o755 },
    "app/tools/attack_server.mjs": {
      text: readFileSync(`${REPO_ROOT}/tests/fixtures/sandbox/attack_server.mjs`, "utf8"),
      mode: 0o755,
    },
  });
  try {
    const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
      stateDir: `${ws.root}/.toolhost/state`,
      env: { PATH: "/usr/bin:/bin" },
    });
    const source = evalToolSource(reg);
    try {
      const name = (await source.list()).map((t) => t.name).find((n) => n.startsWith("graceful"))!;
      assert.equal(text(await source.call(name, { dir, mark })), "ready");
    } finally {
      await source.close();
    }
    const files = readdirSync(dir);
    for (const f of ["server_term", "main_term", "child_term"]) {
      assert.ok(files.includes(f), `no ${f}: ${files}`);
    }
    assert.deepEqual(await markerGone(mark), [], "processes outlived the server");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
