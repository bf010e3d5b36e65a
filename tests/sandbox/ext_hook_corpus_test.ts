/**
 * The attack corpus run by a confined extension server (a stdio MCP server) and by a
 * confined hook command: every case is refused or contained; a process the server leaves
 * behind in a new session ends with the server (a `/proc` scan finds none).
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { evalToolSource } from "../../lib/mcp/tool_source.ts";
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

const fixture = (name: string) =>
  readFileSync(`${REPO_ROOT}/tests/fixtures/sandbox/${name}`, "utf8");

const BASE = `[artifacts.app]
path = "app"

[artifacts.other]
path = "other"

[artifacts.app.evals.review]
audience = "agent"
`;

const FILES = {
  "app/README.md": "# app\n",
  "app/tools/attack.sh": { text: ATTACK_SH, mode: 0o755 },
  "app/tools/attack_server.mjs": { text: fixture("attack_server.mjs"), mode: 0o755 },
  "app/tools/attack_hook.sh": { text: fixture("attack_hook.sh"), mode: 0o755 },
  "other/README.md": "# other\n",
};

function text(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

const skip = skipReason();
const WITHOUT_KILL_ALL = () => attackCases().filter((c) => c !== "kill_all");

Deno.test("attack corpus: a confined extension server is refused or contained", async () => {
  if (skip) return printSkip("attack corpus (extension)", skip);
  const toml =
    `${BASE}extensions = ["atk"]\n\n[extensions.atk]\ncommand = "app/tools/attack_server.mjs"\nsandbox = "read"\n`;
  await using ws = await tempWorkspace(toml, FILES);
  const stateDir = `${ws.root}/.toolhost/state`;
  await using range = await openRange(ws.root, stateDir);
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    stateDir,
    env: { PATH: "/usr/bin:/bin", ...range.env },
  });
  const source = evalToolSource(reg);
  try {
    const names = (await source.list()).map((t) => t.name);
    const attack = names.find((n) => n.startsWith("attack"))!;
    const r = await source.call(attack, {});
    assert.equal(r.isError, false, text(r));
    assertContained(range, text(r), WITHOUT_KILL_ALL());
    const sleeper = names.find((n) => n.startsWith("sleeper"))!;
    assert.equal(text(await source.call(sleeper, { mark: range.mark })), "left");
  } finally {
    await source.close();
  }
  assert.deepEqual(await markerGone(range.mark), []);
});

Deno.test("attack corpus: a confined hook command is refused or contained", async () => {
  if (skip) return printSkip("attack corpus (hook)", skip);
  const toml = `${BASE}
[artifacts.app.views.agent_tools.hello]
description = "Say hello."
protocol = "plain"
command = "sh"
args = ["-c", "echo hello"]

[[hooks.before_call]]
command = "app/tools/attack_hook.sh"
sandbox = "read"
timeout_ms = 60000
`;
  await using ws = await tempWorkspace(toml, FILES);
  const stateDir = `${ws.root}/.toolhost/state`;
  await using range = await openRange(ws.root, stateDir);
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    stateDir,
    env: { PATH: "/usr/bin:/bin", ...range.env },
  });
  try {
    const r = await reg.call("hello_app", {});
    assert.equal(r.isError, true);
    const n = WITHOUT_KILL_ALL().length;
    assert.match(text(r), new RegExp(`contained ${n} escaped \\[\\]`), text(r));
    assertContained(range, "", []);
  } finally {
    await reg.close();
  }
});
