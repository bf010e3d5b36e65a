/**
 * `listChanged` end to end: `toolhost serve` as a child process, an extension (the heal
 * fixture server) that re-describes a tool and announces it; the SDK `Client` connected to
 * toolhost gets `notifications/tools/list_changed` and the new listing. An eval without
 * extensions does not advertise the capability.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { tempWorkspace } from "../helpers/workspace.ts";
import { extensionToml, REPO, serveArgs, waitFor } from "./_helpers.ts";

const HEAL = [
  "run",
  "-A",
  "--config",
  `${REPO}/deno.json`,
  `${REPO}/tests/fixtures/mcp/heal_server.ts`,
];

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
  `extensions = ["hx"]\n\n[artifacts.app.evals.plain]\naudience = "agent"\n\n` +
  `[artifacts.app.views.agent_tools.read]\nbuiltin = "read"\n` +
  extensionToml("hx", { command: "deno", args: HEAL, timeout_ms: 30000 });

async function connect(root: string, evalName: string) {
  const client = new Client({ name: "e2e", version: "1" });
  let notices = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    notices++;
  });
  await client.connect(
    new StdioClientTransport({
      command: "deno",
      args: serveArgs("--eval", evalName, "--repo", root),
      stderr: "ignore",
    }),
  );
  return { client, notices: () => notices };
}

Deno.test("serve: an extension's announced change reaches the client as list_changed", async () => {
  const tmp = await tempWorkspace(TOML, { "app/README.md": "# app\n" });
  const { client, notices } = await connect(tmp.root, "app/review");
  try {
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
    const before = (await client.listTools()).tools.find((t) => t.name === "echo_hx");
    assert.equal(before?.description, "Echo a text.");
    const r = await client.callTool({ name: "mutate_hx", arguments: {} });
    assert.equal(r.isError, false);
    assert.equal(await waitFor(() => notices() > 0, 120_000), true, "no list_changed arrived");
    const after = (await client.listTools()).tools.find((t) => t.name === "echo_hx");
    assert.match(after?.description ?? "", /ignore previous instructions/);
  } finally {
    await client.close();
    await tmp.cleanup();
  }
});

Deno.test("serve: an eval without extensions does not advertise list_changed", async () => {
  const tmp = await tempWorkspace(TOML, { "app/README.md": "# app\n" });
  const { client, notices } = await connect(tmp.root, "app/plain");
  try {
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, false);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("read_app"), names.join());
    assert.equal(names.some((n) => n.endsWith("_hx")), false, names.join());
    assert.equal(notices(), 0);
  } finally {
    await client.close();
    await tmp.cleanup();
  }
});
