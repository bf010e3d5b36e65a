/**
 * An extension result nested absurdly deep is refused at the boundary, as a json-protocol
 * result is (1024 levels): past it, the recursive walks after the call (redaction of
 * protected values) overflowed the stack and the registry's call threw instead of
 * answering with a ToolResult.
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { fromMcpResult } from "../../lib/extensions/inbound_result.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { extensionToml, REPO } from "./_helpers.ts";

const deep = (levels: number) => JSON.parse("[".repeat(levels) + "]".repeat(levels));
const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

Deno.test("fromMcpResult: a result nested deeper than 1024 levels is an error result", async () => {
  const ok = await fromMcpResult({ content: [], structuredContent: { a: deep(1000) } });
  assert.equal(ok.isError, false);
  const r = await fromMcpResult({ content: [], structuredContent: { a: deep(5000) } });
  assert.equal(r.isError, true);
  assert.match(text(r), /nests deeper than 1024 levels/);
});

Deno.test("a deep extension result with protected values active is an error result, not a throw", async () => {
  const toml = `[plugins]\nenable = ["protected-values"]\n\n[plugins.protected-values]\n` +
    `provider = "env"\nenv = { deploy-token = "DEPLOY_TOKEN" }\n\n` +
    `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\nextensions = ["ev"]\n` +
    extensionToml("ev", {
      command: "deno",
      args: [
        "run",
        "-A",
        "--config",
        `${REPO}/deno.json`,
        `${REPO}/tests/fixtures/mcp/scripted_server.ts`,
      ],
      connect_timeout_ms: 120000,
      timeout_ms: 60000,
      env: {
        PATH: `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`,
        SCRIPT: JSON.stringify({
          tools: [{ name: "t", inputSchema: { type: "object" } }],
          result: { content: [], structuredContent: { a: deep(20_000) } },
        }),
      },
    });
  await using tmp = await tempWorkspace(toml, { "app/README.md": "# app\n" });
  const env = { PATH: Deno.env.get("PATH") ?? "", DEPLOY_TOKEN: "s3cr3t-deploy-token-value" };
  const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
    stateDir: `${tmp.root}/.state`,
    env,
  });
  try {
    const r = await reg.call("t_ev", {});
    assert.equal(r.isError, true);
    assert.match(text(r), /nests deeper than 1024 levels/);
  } finally {
    await reg.close();
  }
});
