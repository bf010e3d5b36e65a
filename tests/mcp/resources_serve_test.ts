/**
 * Artifacts as MCP resources through the real `toolhost serve`, over Streamable HTTP and
 * stdio: a call returning an odek envelope carries a resource_link, the artifact is then
 * listed and readable, and another HTTP session (its own registry) holds none.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { tempWorkspace } from "../helpers/workspace.ts";
import { E2E_FILES, e2eToml, serveArgs } from "./_helpers.ts";
import { client, serveHttp } from "./_http_serve.ts";

type Block = { type: string; uri?: string; text?: string };

async function check(c: Client, root: string): Promise<void> {
  assert.deepEqual(c.getServerCapabilities()?.resources, { listChanged: true });
  const r = await c.callTool({ name: "envelope_app", arguments: {} });
  const content = r.content as Block[];
  assert.match(content[0].text ?? "", /^built\n\[artifact\] id="r1"/);
  assert.deepEqual(content[1], {
    type: "resource_link",
    uri: "toolhost://artifact/r1",
    name: "r1",
    mimeType: "application/json",
  });
  const listed = (await c.listResources()).resources;
  assert.deepEqual(listed.map((x) => x.uri), ["toolhost://artifact/r1"]);
  const read = await c.readResource({ uri: "toolhost://artifact/r1" });
  assert.deepEqual(read.contents, [{
    uri: "toolhost://artifact/r1",
    mimeType: "application/json",
    text: '{"r":1}\n',
  }]);
  assert.doesNotMatch(JSON.stringify([r, listed, read]), new RegExp(root));
}

Deno.test("serve --http: artifacts are resources of the session that received them", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const served = await serveHttp(tmp.root);
  try {
    const a = await client(served.url);
    await check(a.c, tmp.root);
    const b = await client(served.url);
    assert.deepEqual((await b.c.listResources()).resources, []);
    await assert.rejects(() => b.c.readResource({ uri: "toolhost://artifact/r1" }));
    await a.c.close();
    await b.c.close();
  } finally {
    await served.stop();
  }
});

Deno.test("serve (stdio): artifacts are resources", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: serveArgs("--eval", "app/review", "--repo", tmp.root),
    env: { ...Deno.env.toObject(), TEST_PIDDIR: tmp.root },
    stderr: "ignore",
  });
  const c = new Client({ name: "e2e-stdio", version: "1" });
  await c.connect(transport);
  try {
    await check(c, tmp.root);
  } finally {
    await c.close();
  }
});
