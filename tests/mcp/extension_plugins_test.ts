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
