/**
 * Artifacts as MCP resources on `serve`: the capability, `resources/list` (paged),
 * `resources/read` (text and blob), `resources/templates/list`,
 * `notifications/resources/list_changed`, `resource_link` blocks only for protocol
 * versions that have them, unchanged model-facing text, and URIs that neither leak a
 * path nor read anything the registry does not hold.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../lib/mcp/server.ts";
import { evalToolSource } from "../../lib/mcp/tool_source.ts";
import { artifactIdOf, artifactUri, RESOURCE_PAGE_SIZE } from "../../lib/mcp/resources.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { waitFor } from "./_helpers.ts";

const ENVELOPE_SH = `#!/bin/sh
cat >/dev/null
f="$(pwd)/out/$1"
printf '{"content":[{"type":"text","text":"{\\\\"schema\\\\":\\\\"odek.tool-result/v1\\\\",\\\\"text\\\\":\\\\"built\\\\",\\\\"artifacts\\\\":[{\\\\"schema\\\\":\\\\"odek.artifact-ref/v1\\\\",\\\\"id\\\\":\\\\"%s\\\\",\\\\"uri\\\\":\\\\"file://%s\\\\",\\\\"media_type\\\\":\\\\"%s\\\\"}]}"}]}\\n' "$1" "$f" "$2"
`;

const TOML = `[artifacts.app]
path = "app"
artifact_roots = ["app/out"]

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.report]
description = "Build a report."
protocol = "json"
command = "tools/envelope.sh"
args = ["report.json", "application/json"]

[artifacts.app.views.agent_tools.picture]
description = "Build a picture."
protocol = "json"
command = "tools/envelope.sh"
args = ["pic.bin", "application/octet-stream"]
`;

const FILES = {
  "app/README.md": "# app\n",
  "app/out/report.json": '{"r":1}\n',
  "app/out/pic.bin": new Uint8Array([0, 1, 2, 255]),
  "app/tools/envelope.sh": { text: ENVELOPE_SH, mode: 0o755 },
};

async function connect(protocolVersion?: string) {
  const tmp = await tempWorkspace(TOML, FILES);
  const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
    stateDir: `${tmp.root}/.state`,
  });
  const source = evalToolSource(reg);
  const mcp = createMcpServer(source);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  if (protocolVersion) {
    // Ask for an older version: the SDK client sends its latest, so rewrite it.
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (m, o) => {
      if ("method" in m && m.method === "initialize") {
        m = { ...m, params: { ...m.params, protocolVersion } };
      }
      return send(m, o);
    };
  }
  const client = new Client({ name: "t", version: "1" });
  let changed = 0;
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    changed++;
  });
  await client.connect(clientSide);
  return {
    tmp,
    reg,
    client,
    changed: () => changed,
    async close() {
      await client.close();
      await mcp.shutdown();
      await tmp.cleanup();
    },
  };
}

Deno.test("artifacts are listed, read, linked and announced as MCP resources", async () => {
  const c = await connect();
  try {
    assert.deepEqual(c.client.getServerCapabilities()?.resources, { listChanged: true });
    assert.deepEqual((await c.client.listResources()).resources, []);
    const templates = await c.client.listResourceTemplates();
    assert.equal(templates.resourceTemplates[0].uriTemplate, "toolhost://artifact/{id}");

    const direct = await c.reg.call("report_app", {});
    const r = await c.client.callTool({ name: "report_app", arguments: {} });
    const content = r.content as Record<string, unknown>[];
    // The model-facing text is what the registry returns, untouched, without a path.
    assert.deepEqual(content[0], direct.content[0]);
    assert.doesNotMatch(JSON.stringify(r), new RegExp(c.tmp.root));
    assert.deepEqual(content[1], {
      type: "resource_link",
      uri: "toolhost://artifact/report.json",
      name: "report.json",
      mimeType: "application/json",
    });
    assert.equal(await waitFor(() => c.changed() > 0), true);

    const listed = (await c.client.listResources()).resources;
    assert.deepEqual(listed.map((x) => x.uri), ["toolhost://artifact/report.json"]);
    assert.doesNotMatch(JSON.stringify(listed), new RegExp(c.tmp.root));
    const read = await c.client.readResource({ uri: "toolhost://artifact/report.json" });
    assert.deepEqual(read.contents, [{
      uri: "toolhost://artifact/report.json",
      mimeType: "application/json",
      text: '{"r":1}\n',
    }]);

    await c.client.callTool({ name: "picture_app", arguments: {} });
    const pic = await c.client.readResource({ uri: "toolhost://artifact/pic.bin" });
    assert.deepEqual(pic.contents, [{
      uri: "toolhost://artifact/pic.bin",
      mimeType: "application/octet-stream",
      blob: "AAEC/w==",
    }]);
  } finally {
    await c.close();
  }
});

Deno.test("resource URIs cannot be forged into reading what is not a held artifact", async () => {
  const c = await connect();
  try {
    await c.client.callTool({ name: "report_app", arguments: {} });
    for (
      const uri of [
        "toolhost://artifact/nothere",
        "toolhost://artifact/..%2F..%2FREADME.md",
        "toolhost://artifact/report.json/../../README.md",
        "toolhost://artifact/%72eport.json", // another spelling of a held id
        `file://${c.tmp.root}/app/out/report.json`,
        "toolhost://artifact/",
      ]
    ) {
      await assert.rejects(
        () => c.client.readResource({ uri }),
        (e: Error & { code?: number }) => e.code === -32002,
        uri,
      );
    }
  } finally {
    await c.close();
  }
});

Deno.test("resources/list pages with a cursor", async () => {
  const c = await connect();
  try {
    const path = `${c.tmp.root}/app/out/report.json`;
    for (let i = 0; i < RESOURCE_PAGE_SIZE + 5; i++) {
      const ref = {
        schema: "odek.artifact-ref/v1",
        id: `a${i}`,
        uri: `file://${path}`,
        media_type: "application/json",
      };
      c.reg.artifacts.add(ref, path);
    }
    const first = await c.client.listResources();
    assert.equal(first.resources.length, RESOURCE_PAGE_SIZE);
    assert.equal(typeof first.nextCursor, "string");
    const second = await c.client.listResources({ cursor: first.nextCursor });
    assert.equal(second.resources.length, 5);
    assert.equal(second.nextCursor, undefined);
    await assert.rejects(() => c.client.listResources({ cursor: "x" }));
  } finally {
    await c.close();
  }
});

Deno.test("clients before 2025-06-18 get no resource_link block", async () => {
  const c = await connect("2025-03-26");
  try {
    const r = await c.client.callTool({ name: "report_app", arguments: {} });
    assert.equal((r.content as unknown[]).length, 1);
  } finally {
    await c.close();
  }
});

Deno.test("artifact URIs round-trip exactly one spelling", () => {
  for (const id of ["r1", "a b", "ü/../x", "%"]) assert.equal(artifactIdOf(artifactUri(id)), id);
  assert.equal(artifactIdOf("toolhost://artifact/a%20b"), "a b");
  assert.equal(artifactIdOf("toolhost://artifact/a b"), undefined);
  assert.equal(artifactIdOf("toolhost://artifact/%E0%A4%A"), undefined);
});
