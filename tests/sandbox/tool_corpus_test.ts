/**
 * The attack corpus run as a confined command tool (sandbox = "read", network off)
 * through the library: every case is refused or contained, and the same script run
 * unconfined (`host`) does escape — so the corpus can fail. Then the process cases:
 * a setsid re-forking hopper, a double-forked daemon, a bounded fork bomb under
 * `max_processes`, a setsid memory hog under `max_memory_mb` — after each call a
 * `/proc` scan for the marker finds nothing.
 */

import assert from "node:assert/strict";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import {
  assertContained,
  ATTACK_SH,
  attackCases,
  CONTAIN_SH,
  markerGone,
  openRange,
  printSkip,
  skipReason,
} from "./_corpus.ts";

function manifest(sandbox: string, limits = ""): string {
  return `[artifacts.app]
path = "app"

[artifacts.other]
path = "other"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.attack]
description = "Try one escape."
protocol = "plain"
command = "tools/attack.sh"
args = ["{case}"]
input_schema = { type = "object", properties = { case = { type = "string" } }, required = ["case"] }
sandbox = "${sandbox}"
execution_paths = ["app/tools/attack.sh", "app/tools/contain.sh"]

[artifacts.app.views.agent_tools.contain]
description = "Try to outlive the call."
protocol = "plain"
command = "tools/contain.sh"
args = ["{case}", "{mark}"]
input_schema = { type = "object", properties = { case = { type = "string" }, mark = { type = "string" } }, required = ["case", "mark"] }
sandbox = "${sandbox}"
timeout_ms = 60000
${limits}
`;
}

const FILES = {
  "app/README.md": "# app\n",
  "app/tools/attack.sh": { text: ATTACK_SH, mode: 0o755 },
  "app/tools/contain.sh": { text: CONTAIN_SH, mode: 0o755 },
  "other/README.md": "# other\n",
};

function text(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

async function open(sandbox: string, limits = "", warmSandboxes = true) {
  const ws = await tempWorkspace(manifest(sandbox, limits), FILES);
  const stateDir = `${ws.root}/.toolhost/state`;
  const range = await openRange(ws.root, stateDir);
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    stateDir,
    env: { PATH: "/usr/bin:/bin", ...range.env },
    warmSandboxes,
  });
  return {
    reg,
    range,
    async [Symbol.asyncDispose]() {
      await reg.close();
      await range[Symbol.asyncDispose]();
      await ws.cleanup();
    },
  };
}

const skip = skipReason();

/**
 * Call `tool` in a warm sandbox (a first call leaves one; the second takes it) or, with
 * warm sandboxes off, cold.
 */
async function callIn(
  mode: "warm" | "cold",
  reg: Registry,
  tool: string,
  args: Record<string, unknown>,
  prime: Record<string, unknown>,
) {
  if (mode === "cold") {
    assert.equal(reg.warm, undefined);
    return await reg.call(tool, args);
  }
  await reg.call(tool, prime);
  await reg.warm!.settled();
  const r = await reg.call(tool, args);
  assert.equal(reg.warm!.stats.taken, 1, "the call ran in a warm sandbox");
  return r;
}

for (const mode of ["warm", "cold"] as const) {
  Deno.test(`attack corpus: a confined command tool is refused or contained in every case (${mode})`, async () => {
    if (skip) return printSkip(`attack corpus (command tool, ${mode})`, skip);
    const cases = attackCases();
    assert.ok(cases.length >= 40, `${cases.length} cases`);
    await using t = await open("read", "", mode === "warm");
    const r = await callIn(mode, t.reg, "attack_app", { case: "all" }, { case: "list" });
    assert.equal(r.isError, false, text(r));
    assertContained(t.range, text(r), cases);
  });
}

Deno.test("attack corpus control: the same tool unconfined (host) escapes", async () => {
  await using t = await open("host");
  for (const c of ["read_ssh_key", "read_other_artifact", "read_state_file", "signal_toolhost"]) {
    const out = text(await t.reg.call("attack_app", { case: c }));
    assert.match(out, new RegExp(`^ESCAPED ${c}$`, "m"), out);
  }
  await t.reg.call("attack_app", { case: "write_own_artifact" });
  assert.equal(Deno.statSync(`${t.range.env.ATTACK_OWN}/pwned`).isFile, true);
});

for (const c of ["hopper", "daemon"]) {
  for (const mode of ["warm", "cold"] as const) {
    Deno.test(`contained: a ${c} ends with its call (0 processes carry the marker, ${mode})`, async () => {
      if (skip) return printSkip(`contain ${c} (${mode})`, skip);
      await using t = await open("none", "", mode === "warm");
      const args = { case: c, mark: t.range.mark };
      const r = await callIn(mode, t.reg, "contain_app", args, { case: "none", mark: "-" });
      assert.equal(r.isError, false, text(r));
      assert.deepEqual(await markerGone(t.range.mark), []);
    });
  }
}

Deno.test("contained: a fork bomb in new sessions is counted under max_processes", async () => {
  if (skip) return printSkip("contain forkbomb", skip);
  await using t = await open("none", "max_processes = 20");
  const r = await t.reg.call("contain_app", { case: "forkbomb", mark: t.range.mark });
  assert.equal(r.isError, true);
  assert.match(text(r), /resource limit: processes/);
  assert.deepEqual(await markerGone(t.range.mark), []);
});

Deno.test("contained: a memory hog that left the process group is counted under max_memory_mb", async () => {
  if (skip) return printSkip("contain memhog", skip);
  await using t = await open("none", "max_memory_mb = 64");
  const r = await t.reg.call("contain_app", { case: "memhog", mark: t.range.mark });
  assert.equal(r.isError, true);
  assert.match(text(r), /resource limit: memory/);
  assert.deepEqual(await markerGone(t.range.mark), []);
});
