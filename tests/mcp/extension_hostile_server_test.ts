/**
 * Adversarial extension servers (tests/fixtures/mcp/scripted_server.ts): what a hostile
 * MCP server answers must neither stall toolhost's event loop nor take down the listing
 * of its other tools.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { dirname } from "node:path";
import { ExtensionConnection } from "../../lib/extensions/connection.ts";
import type { ProcessGroupTransport } from "../../lib/extensions/group_transport.ts";
import { ExtensionHost } from "../../lib/extensions/host.ts";
import { extensionsOf } from "../../lib/workspace/parse_extensions.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { extensionToml, REPO, waitFor } from "./_helpers.ts";

/** A workspace whose eval `app/review` admits the scripted server `ev` running `script`. */
async function scriptedWorkspace(script: Record<string, unknown>) {
  const tmp = await tempWorkspace("", { "app/README.md": "# app\n" });
  const toml =
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
        SCRIPT: JSON.stringify(script),
      },
    });
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, toml);
  return tmp;
}

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

Deno.test("a backtracking pattern in an extension's outputSchema cannot stall toolhost", async () => {
  await using tmp = await scriptedWorkspace({
    tools: [{
      name: "redos",
      inputSchema: { type: "object" },
      outputSchema: {
        type: "object",
        properties: { s: { type: "string", pattern: "^(a+)+$" } },
      },
    }],
    result: {
      content: [{ type: "text", text: "done" }],
      structuredContent: { s: "a".repeat(48) + "!" },
    },
  });
  // The call runs in another toolhost process: a stalled event loop stalls everything in
  // the process it is in, including any timer a test could set.
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      `${REPO}/deno.json`,
      `${REPO}/tests/fixtures/mcp/scripted_call_child.ts`,
      tmp.root,
      "redos_ev",
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const cap = setTimeout(() => child.kill("SIGKILL"), 120_000); // a cap, not a measurement
  const out = await child.output();
  clearTimeout(cap);
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  assert.equal(lines.length, 2, `the call never returned: ${lines.join("\n")}`);
  const { result } = JSON.parse(lines[1]);
  assert.equal(result.isError, false, text(result));
  assert.equal(text(result), "done");
});

Deno.test("an extension tool with an uncompilable outputSchema does not hide the others", async () => {
  await using tmp = await scriptedWorkspace({
    tools: [
      {
        name: "broken",
        inputSchema: { type: "object" },
        outputSchema: { type: "object", properties: { s: { type: "string", pattern: "(" } } },
      },
      { name: "fine", inputSchema: { type: "object" } },
    ],
    result: { content: [{ type: "text", text: "ok" }] },
  });
  const host = ExtensionHost.forEval(await loadWorkspace(tmp.root), "app/review");
  try {
    const names = (await host.list()).map((t) => t.name).sort();
    assert.ok(names.includes("fine_ev"), names.join(","));
    const r = await host.call("fine_ev", {});
    assert.equal(r.isError, false, text(r));
  } finally {
    await host.close();
  }
});

Deno.test("a server that floods requests and never reads its answers is disconnected", async () => {
  // 300,000 pings with long ids: about 75 MB of answers if toolhost queued them all.
  const id = "x".repeat(200);
  await using tmp = await scriptedWorkspace({
    tools: [{ name: "t", inputSchema: { type: "object" } }],
    flood: { line: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }), count: 300_000 },
  });
  const ws = await loadWorkspace(tmp.root);
  const decl = extensionsOf(ws).decls.get("ev")!;
  const conn = await ExtensionConnection.open({ decl, root: tmp.root, env: {} });
  try {
    await conn.listTools();
    const transport = conn.transport as ProcessGroupTransport;
    assert.equal(await waitFor(() => conn.dead, 60_000), true, "the server is still connected");
    assert.ok(transport.pendingBytes <= 16 * 1024 * 1024 + 4096, String(transport.pendingBytes));
  } finally {
    assert.equal(await conn.close(), true);
  }
});

Deno.test("a long line from an extension server is framed in linear time", async () => {
  // 8 MiB without a newline arrives in pipe-sized chunks (64 KiB at most): copying what was
  // buffered on every chunk, as the SDK's ReadBuffer does, copies at least 512 MiB.
  const line = 8 * 1024 * 1024;
  await using tmp = await scriptedWorkspace({
    tools: [{ name: "t", inputSchema: { type: "object" } }],
    result: { content: [{ type: "text", text: "after" }] },
    junkLineBytes: line,
  });
  const host = ExtensionHost.forEval(await loadWorkspace(tmp.root), "app/review");
  const concat = Buffer.concat;
  let copied = 0;
  Buffer.concat = (list: readonly Uint8Array[], total?: number) => {
    const out = concat(list, total);
    copied += out.byteLength;
    return out;
  };
  try {
    await host.list();
    const r = await host.call("t_ev", {});
    assert.equal(text(r), "after");
    assert.ok(copied <= 8 * line, `${copied} bytes copied for a line of ${line}`);
  } finally {
    Buffer.concat = concat;
    await host.close();
  }
});
