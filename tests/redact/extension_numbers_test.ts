/**
 * An extension server's messages are parsed by toolhost, and parsing rewrites numbers: a
 * protected value inside a long number (`1<value>5` in `structuredContent`) came out of
 * the parse as `1.9876543210987654e+21` — fourteen of the value's digits, which no
 * redaction after the parse can recognise. A line holding a value outside its strings
 * is held before the parse.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { HELD_EXTENSION_MESSAGE, JsonRpcLineBuffer } from "../../lib/extensions/json_rpc_lines.ts";
import { Redactor } from "../../lib/redact/redactor.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { extensionToml } from "../mcp/_helpers.ts";
import { assertNoPart } from "./_helpers.ts";

const NUM = "98765432109876543210";
/** Its digits around a point, one more after: no contiguous value, the parse joins them. */
const SPLIT = `${NUM.slice(0, 5)}.${NUM.slice(5)}5e16`;

// A raw MCP server over stdio: its call result carries the value inside a number.
const SERVER = `
import { createInterface } from "node:readline";
const send = (s) => process.stdout.write(s + "\\n");
for await (const line of createInterface({ input: process.stdin })) {
  const m = JSON.parse(line);
  if (m.method === "initialize") {
    send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: {
      protocolVersion: m.params.protocolVersion, capabilities: { tools: {} },
      serverInfo: { name: "raw", version: "1" } } }));
  } else if (m.method === "tools/list") {
    send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { tools: [
      { name: "num", description: "num", inputSchema: { type: "object" } }] } }));
  } else if (m.method === "tools/call") {
    send('{"jsonrpc":"2.0","id":' + m.id + ',"result":{"content":[],"structuredContent":' +
      '{"n":[1' + process.env.RAW_NUM + '5],"m":-' + process.env.RAW_NUM + '.5e3}}}');
  }
}
`;

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\n` +
  `audience = "agent"\nextensions = ["raw"]\n\n[plugins]\nenable = ["protected-values"]\n\n` +
  `[plugins.protected-values]\nprovider = "env"\nenv = { deploy = "DEPLOY_TOKEN" }\n` +
  extensionToml("raw", {
    command: "deno",
    args: ["run", "-A", "server.mjs"],
    env: { RAW_NUM: NUM },
  });

Deno.test("an extension's value inside a number is held before the parse rounds it", async () => {
  await using tmp = await tempWorkspace(TOML, {
    "app/README.md": "# app\n",
    "server.mjs": SERVER,
  });
  const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
    stateDir: `${tmp.root}/.state`,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/",
      DEPLOY_TOKEN: NUM,
    },
    lock: false,
  });
  try {
    const r = await reg.call("num_raw", {});
    assertNoPart(r, NUM.slice(0, 12), "call result");
    for (let i = 0; i + 6 <= NUM.length; i++) {
      assert.ok(!JSON.stringify(r).includes(NUM.slice(i, i + 6)), JSON.stringify(r));
    }
    assert.equal(r.isError, true, JSON.stringify(r));
    assert.match(JSON.stringify(r), /withheld/);
  } finally {
    await reg.close();
  }
});

Deno.test("JsonRpcLineBuffer holds a line with a value outside its strings, whatever its kind", () => {
  const red = new Redactor();
  red.add(NUM);
  const buf = new JsonRpcLineBuffer({ protect: () => red });
  const lines = [
    `{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":{"n":1${NUM}5}}}`,
    `{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"m","data":[${NUM}0]}}`,
    `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":${NUM}}}`,
    `{"jsonrpc":"2.0","id":"s","method":"sampling/createMessage","params":{"n":${NUM}}}`,
    `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"${NUM}"}]}}`,
    `{"jsonrpc":"2.0","id":6,"result":{"content":[],"structuredContent":{"n":${SPLIT}}}}`,
  ];
  buf.append(Buffer.from(lines.join("\n") + "\n"));
  const out = lines.map(() => buf.readMessage());
  assert.deepEqual(out[0], {
    jsonrpc: "2.0",
    id: 3,
    result: { content: [{ type: "text", text: HELD_EXTENSION_MESSAGE }], isError: true },
  });
  assert.deepEqual(out[1], {
    jsonrpc: "2.0",
    id: 4,
    error: { code: -32603, message: HELD_EXTENSION_MESSAGE },
  });
  assert.deepEqual(out[2], { jsonrpc: "2.0", method: "notifications/progress" });
  assert.deepEqual(out[3], { jsonrpc: "2.0", id: "s", method: "sampling/createMessage" });
  // Inside a string, the value is left to the redaction of the parsed result.
  assert.equal(JSON.stringify(out[4]), lines[4]);
  // The value's digits around a point: the parse would join and round them.
  assert.deepEqual(out[5], {
    jsonrpc: "2.0",
    id: 6,
    result: { content: [{ type: "text", text: HELD_EXTENSION_MESSAGE }], isError: true },
  });
  assert.equal(buf.readMessage(), null);
});
