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
  // The server is started through `sh`, whose first act is to note the start in a file:
  // a denied call that started the server (even just spawned it) leaves that line behind
  // before the call returns, with no clock to wait on. The allowed call after it proves
  // the witness works in this very setup (one start, by the allowed call).
  const tmp = await tempWorkspace("", { "app/README.md": "# app\n" });
  try {
    const starts = `${tmp.root}/fx.starts`;
    const toml = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\n` +
      `audience = "agent"\nextensions = ["fx"]\n\n[plugins]\nenable = ["policy"]\n\n` +
      `[plugins.policy]\ndefault = "allow"\n\n[[plugins.policy.rules]]\neffect = "deny"\n` +
      `tools = ["echo_fx"]\nmatch = [{ pointer = "/text", pattern = "^blocked" }]\n` +
      `reason = "blocked text"\n\n` +
      extensionToml("fx", {
        command: "sh",
        args: [
          "-c",
          'echo started >> "$FX_STARTS"; exec "$@"',
          "sh",
          "deno",
          ...fixtureServerArgs(),
        ],
        env: { FX_STARTS: starts },
      });
    Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, toml);
    const ws = await loadWorkspace(tmp.root);
    const reg = await Registry.open(ws, "app/review", { stateDir: `${tmp.root}/.state` });
    const source = evalToolSource(reg);
    const startCount = () => {
      try {
        return Deno.readTextFileSync(starts).split("\n").filter((l) => l === "started").length;
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) return 0;
        throw e;
      }
    };
    try {
      const denied = await source.call("echo_fx", { text: "blocked1" });
      assert.equal(denied.isError, true);
      assert.match(JSON.stringify(denied), /blocked text/);
      assert.equal(startCount(), 0, "the extension server was started for a denied call");
      const allowed = await source.call("echo_fx", { text: "hello" });
      assert.equal(allowed.isError, false, JSON.stringify(allowed));
      assert.equal(startCount(), 1, "the allowed call started exactly one server");
    } finally {
      await source.close();
    }
  } finally {
    await tmp.cleanup();
  }
});
