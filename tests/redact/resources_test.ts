/**
 * What `serve` adds to a result after the registry's boundary — `resource_link` blocks
 * for the artifacts a result names — and what it lists as MCP resources come from the
 * artifact refs a tool printed: a ref's summary, media type or id holding a protected
 * value never reaches the client through them.
 */

import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer } from "../../lib/mcp/server.ts";
import { evalToolSource } from "../../lib/mcp/tool_source.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { assertTextHasNoPart, VALUE } from "./_helpers.ts";

const ENVELOPE_MJS = `
import { readFileSync } from "node:fs";
const [id, media, summary] = JSON.parse(readFileSync(0, "utf8")).args.ref;
const env = { schema: "odek.tool-result/v1", text: "built", artifacts: [{
  schema: "odek.artifact-ref/v1", id, media_type: media, summary,
  uri: "file://" + process.cwd() + "/out/report.json" }] };
console.log(JSON.stringify({ content: [{ type: "text", text: JSON.stringify(env) }] }));
`;

const TOML = `[artifacts.app]
path = "app"
artifact_roots = ["app/out"]

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.report]
description = "Build a report."
protocol = "json"
command = "node"
args = ["tools/envelope.mjs"]
input_schema = { type = "object", properties = { ref = { type = "array", items = { type = "string" } } } }

[plugins]
enable = ["protected-values"]

[plugins.protected-values]
provider = "env"
env = { deploy = "DEPLOY_TOKEN" }
`;

Deno.test("resource links and resources/list never show a ref's protected value", async () => {
  const tmp = await tempWorkspace(TOML, {
    "app/README.md": "# app\n",
    "app/out/report.json": '{"r":1}\n',
    "app/tools/envelope.mjs": ENVELOPE_MJS,
  });
  const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
    stateDir: `${tmp.root}/.state`,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/",
      DEPLOY_TOKEN: VALUE,
    },
  });
  const mcp = createMcpServer(evalToolSource(reg));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(clientSide);
  try {
    const refs = [
      ["r1", "application/json", `the report; token ${VALUE}`],
      ["r2", `text/${VALUE}`, "ok"],
      [`r3-${VALUE}`, "application/json", "ok"],
    ];
    for (const ref of refs) {
      const r = await client.callTool({ name: "report_app", arguments: { ref } });
      assertTextHasNoPart([JSON.stringify(r)], VALUE, `tools/call ${ref.join(" ")}`);
    }
    const listed = await client.listResources();
    assertTextHasNoPart([JSON.stringify(listed)], VALUE, "resources/list");
  } finally {
    await client.close();
    await mcp.shutdown();
    await tmp.cleanup();
  }
});
