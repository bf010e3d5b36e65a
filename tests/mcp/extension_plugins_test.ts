/**
 * Extension tools served next to an eval's own tools pass the same plugin hooks: a policy
 * denial stops the call before it reaches the extension server.
 */
import assert from "node:assert/strict";
import { evalToolSource } from "../../lib/mcp/tool_source.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { extensionToml, fixtureServerArgs } from "./_helpers.ts";

Deno.test("policy denies an extension tool call before it reaches the server", async () => {
  const tmp = await tempWorkspace("", { "app/README.md": "# app\n" });
  try {
    const toml = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\n` +
      `audience = "agent"\nextensions = ["fx"]\n\n[plugins]\nenable = ["policy"]\n\n` +
      `[plugins.policy]\ndefault = "allow"\n\n[[plugins.policy.rules]]\neffect = "deny"\n` +
      `tools = ["echo_fx"]\nmatch = [{ pointer = "/text", pattern = "^blocked" }]\n` +
      `reason = "echoing blocked text is not allowed"\n\n` +
      extensionToml("fx", { command: "deno", args: fixtureServerArgs() });
    Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, toml);
    const ws = await loadWorkspace(tmp.root);
    const reg = await Registry.open(ws, "app/review", { stateDir: `${tmp.root}/.state` });
    const source = evalToolSource(reg);
    try {
      const allowed = await source.call("echo_fx", { text: "hello" });
      assert.equal(allowed.isError, false, JSON.stringify(allowed));
      const denied = await source.call("echo_fx", { text: "blocked1" });
      assert.equal(denied.isError, true);
      assert.match(JSON.stringify(denied), /echoing blocked text is not allowed/);
      assert.doesNotMatch(JSON.stringify(denied), /blocked1/);
    } finally {
      await source.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("a denied first call to an extension tool starts no server", async () => {
  // Issue 6: "No process, directory or session is touched for a denied call".
  const tmp = await tempWorkspace("", { "app/README.md": "# app\n" });
  try {
    const pidFile = `${tmp.root}/fx.pid`;
    const toml = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\n` +
      `audience = "agent"\nextensions = ["fx"]\n\n[plugins]\nenable = ["policy"]\n\n` +
      `[plugins.policy]\ndefault = "deny"\n\n` +
      extensionToml("fx", {
        command: "deno",
        args: fixtureServerArgs(),
        env: { FIXTURE_PIDFILE: pidFile },
      });
    Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, toml);
    const ws = await loadWorkspace(tmp.root);
    const reg = await Registry.open(ws, "app/review", { stateDir: `${tmp.root}/.state` });
    const source = evalToolSource(reg);
    try {
      const denied = await source.call("echo_fx", { text: "hello" });
      assert.equal(denied.isError, true);
      await new Promise((r) => setTimeout(r, 300));
      let started = true;
      try {
        Deno.statSync(pidFile);
      } catch {
        started = false;
      }
      assert.equal(started, false, "the extension server was started for a denied call");
    } finally {
      await source.close();
    }
  } finally {
    await tmp.cleanup();
  }
});
