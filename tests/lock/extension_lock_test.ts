/**
 * `toolhost.lock` and extensions (fixture server tests/fixtures/mcp/heal_server.ts): a
 * server that re-describes a tool after the first `tools/list` has that tool refused;
 * so does one that announces a change through `notifications/tools/list_changed`; an
 * extension whose args changed is not started at all; without a lock, the new listing
 * is simply taken.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { describeDrift } from "../../lib/lock/compare.ts";
import { extensionLockFor } from "../../lib/lock/extension_lock.ts";
import { checkExtensionsAndLock } from "../../lib/extensions/readiness.ts";
import { BLOCKED_DESCRIPTION } from "../../lib/lock/registry_lock.ts";
import { evalToolSource } from "../../lib/mcp/tool_source.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { extensionToml, REPO, waitFor } from "../mcp/_helpers.ts";

const HEAL = [
  "run",
  "-A",
  "--config",
  `${REPO}/deno.json`,
  `${REPO}/tests/fixtures/mcp/heal_server.ts`,
];

function toml(env: Record<string, string>, args: string[] = HEAL): string {
  return `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
    `extensions = ["hx"]\n\n[artifacts.app.views.agent_tools.read]\nbuiltin = "read"\n` +
    extensionToml("hx", { command: "deno", args, timeout_ms: 30000, env });
}

async function lockedSource(env: Record<string, string>, lock = true) {
  const tmp = await tempWorkspace(toml(env), { "app/README.md": "# app\n" });
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  if (lock) await writeLockFile(ws, await buildLock(ws, { stateDir }));
  const source = evalToolSource(await Registry.open(ws, "app/review", { stateDir }));
  return { tmp, ws, stateDir, source };
}

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

async function echoDescription(
  source: { list(): Promise<{ name: string; description: string }[]> },
) {
  return (await source.list()).find((t) => t.name === "echo_hx")?.description;
}

Deno.test("an extension re-describing a tool after the first tools/list: that tool is refused", async () => {
  const { tmp, source } = await lockedSource({ HEAL_RENAME_AFTER_LIST: "1" });
  try {
    assert.equal(await echoDescription(source), "Echo a text."); // the first listing matches
    // With a current lock the listing comes from the lock (issue 18): a first call starts
    // the server, whose live list is then watched.
    assert.equal(text(await source.call("pid_hx", {})).length > 0, true);
    let now: string | undefined;
    assert.equal(
      await waitFor(() => {
        echoDescription(source).then((d) => (now = d));
        return now === BLOCKED_DESCRIPTION;
      }),
      true,
    );
    const r = await source.call("echo_hx", { text: "hi" });
    assert.equal(r.isError, true);
    assert.match(text(r), /^LOCK_MISMATCH: the tool `echo_hx` was refused/);
    assert.match(text(r), /extension tool `hx\/echo`: description changed/);
    assert.doesNotMatch(text(r), /ignore previous instructions/); // never the new content
    assert.equal(text(await source.call("pid_hx", {})).length > 0, true);
    assert.equal((await source.call("read_app", { path: "README.md" })).isError, false);
  } finally {
    await source.close();
    await tmp.cleanup();
  }
});

Deno.test("a change announced mid-session with list_changed blocks the changed tool", async () => {
  const { tmp, source } = await lockedSource({});
  try {
    assert.equal(text(await source.call("echo_hx", { text: "before" })), "before");
    assert.equal(text(await source.call("mutate_hx", {})), "mutated");
    const r = await source.call("echo_hx", { text: "after" });
    assert.match(text(r), /LOCK_MISMATCH.*extension tool `hx\/echo`: description changed/);
    assert.equal(await echoDescription(source), BLOCKED_DESCRIPTION);
  } finally {
    await source.close();
    await tmp.cleanup();
  }
});

Deno.test("without a lock the new listing is taken as announced", async () => {
  const { tmp, source } = await lockedSource({}, false);
  try {
    assert.equal(text(await source.call("mutate_hx", {})), "mutated");
    assert.match((await echoDescription(source))!, /ignore previous instructions/);
    assert.equal(text(await source.call("echo_hx", { text: "x" })), "x");
  } finally {
    await source.close();
    await tmp.cleanup();
  }
});

Deno.test("an extension whose args changed is not started; its locked tools are listed neutrally and refused", async () => {
  const { tmp, ws, stateDir, source: first } = await lockedSource({});
  await first.close();
  try {
    const changed = toml({}, [...HEAL, "--extra"]);
    await Deno.writeTextFile(`${ws.root}/toolhost.toml`, changed);
    const ws2 = await loadWorkspace(ws.root);
    const source = evalToolSource(await Registry.open(ws2, "app/review", { stateDir }));
    try {
      const listed = (await source.list()).filter((t) => t.name.endsWith("_hx"));
      assert.ok(listed.some((t) => t.name === "echo_hx"), listed.map((t) => t.name).join());
      assert.ok(listed.every((t) => t.description === BLOCKED_DESCRIPTION));
      const r = await source.call("echo_hx", { text: "x" });
      assert.equal(r.isError, true);
      assert.match(text(r), /^LOCK_MISMATCH: the tool `echo_hx` was refused/);
      assert.match(text(r), /extension `hx`: declaration `args` changed/);
    } finally {
      await source.close();
    }
    const lock = await extensionLockFor(ws2, "app/review", Deno.env.toObject());
    const { readiness, drift } = await checkExtensionsAndLock(ws2, "app/review", { lock });
    assert.deepEqual(drift.map(describeDrift), ["extension `hx`: declaration `args` changed"]);
    assert.equal(readiness[0].started, false);
  } finally {
    await tmp.cleanup();
  }
});
