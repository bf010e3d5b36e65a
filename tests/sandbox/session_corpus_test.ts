/**
 * Confined tool sessions: the example shape (an HTTP app on the harness's loopback plus
 * bound calls) works under `sandbox = "read"` with the network off — bound calls reach
 * the session dir and the harness's loopback port — while the host cannot reach it; the
 * attack corpus run by the harness itself and by a bound call is refused or contained;
 * and after the session closes a `/proc` scan finds none of its processes.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import {
  assertContained,
  ATTACK_SH,
  attackCases,
  markerGone,
  openRange,
  printSkip,
  skipReason,
} from "./_corpus.ts";

const HARNESS = readFileSync(`${REPO_ROOT}/tests/fixtures/sandbox/web_harness.mjs`, "utf8");

function manifest(startArg: string): string {
  const cmd = (arg: string) =>
    `{ command = "tools/web_harness.mjs", args = ["${arg}"], execution_paths = ["app/tools"] }`;
  const tool = (name: string, arg: string, program = "web_harness.mjs") => `
[artifacts.app.views.agent_tools.${name}]
session = "web"
description = "${name}"
protocol = "plain"
command = "tools/${program}"
args = ["${arg}"]
execution_paths = ["app/tools"]
`;
  return `[artifacts.app]
path = "app"

[artifacts.other]
path = "other"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_sessions.web]
start = { command = "tools/web_harness.mjs", args = ["start", "${startArg}"], execution_paths = ["app/tools"] }
stop = ${cmd("stop")}
sandbox = "read"
${tool("get", "get")}${tool("attack", "all", "attack.sh")}${
    tool("harness_attack", "harness-attack")
  }`;
}

const FILES = {
  "app/README.md": "# app\n",
  "app/tools/web_harness.mjs": { text: HARNESS, mode: 0o755 },
  "app/tools/attack.sh": { text: ATTACK_SH, mode: 0o755 },
  "other/README.md": "# other\n",
};

function text(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

const skip = skipReason();

Deno.test("confined session: bound calls reach the harness's loopback app and session dir", async () => {
  if (skip) return printSkip("confined session", skip);
  await using ws = await tempWorkspace(manifest("serve"), FILES);
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    env: { PATH: "/usr/bin:/bin" },
  });
  let port = 0;
  try {
    assert.equal(text(await reg.call("get_app", {})).trim(), "counter 1");
    assert.equal(text(await reg.call("get_app", {})).trim(), "counter 2");
    const dir = reg.sessions.session("app", ws_session(reg), reg.stateDir).sessionDir!;
    port = Number(Deno.readTextFileSync(`${dir}/port`));
    // The app listens on the session's own loopback, not the host's.
    await assert.rejects(fetch(`http://127.0.0.1:${port}/`));
  } finally {
    await reg.close();
  }
  assert.ok(port > 0);
});

function ws_session(reg: Registry) {
  return reg.workspace.artifacts.get("app")!.sessions.web;
}

Deno.test("attack corpus: a confined harness and its bound call are refused or contained", async () => {
  if (skip) return printSkip("attack corpus (session)", skip);
  await using ws = await tempWorkspace(manifest("attack"), FILES);
  const stateDir = `${ws.root}/.toolhost/state`;
  await using range = await openRange(ws.root, stateDir);
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    stateDir,
    env: { PATH: "/usr/bin:/bin", ...range.env },
  });
  try {
    const cases = attackCases();
    const harness = await reg.call("harness_attack_app", {});
    assertContained(range, text(harness), cases.filter((c) => c !== "kill_all"));
    const bound = await reg.call("attack_app", {});
    assertContained(range, text(bound), cases);
  } finally {
    await reg.close();
  }
  assert.deepEqual(await markerGone(range.mark), []);
});
