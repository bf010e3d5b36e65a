/**
 * An extension test against a real third-party MCP server from npm: the official
 * filesystem server (pinned), started with `npx -y` (needs the npm registry the first
 * time; cached afterwards).
 */
import assert from "node:assert/strict";
import { ExtensionHost } from "../../lib/extensions/host.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { extensionToml, FS_SERVER, groupMembers } from "./_helpers.ts";

Deno.test("extension: @modelcontextprotocol/server-filesystem as a tool source", async () => {
  const tmp = await tempWorkspace("", {
    "app/README.md": "# app\n",
    "docs/a.txt": "alpha\nbeta\n",
  });
  Deno.writeTextFileSync(
    `${tmp.root}/toolhost.toml`,
    `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\nextensions = ["fs"]\n` +
      extensionToml("fs", {
        command: "npx",
        args: ["-y", FS_SERVER, `${tmp.root}/docs`],
        timeout_ms: 60000,
      }),
  );
  const host = ExtensionHost.forEval(await loadWorkspace(tmp.root), "app/review");
  try {
    const tools = await host.list();
    const read = tools.find((t) => t.name === "read_text_file_fs");
    assert.ok(read, tools.map((t) => t.name).join(", "));
    assert.equal((read.inputSchema as { type: string }).type, "object");
    assert.ok(tools.some((t) => t.name === "list_directory_fs"));

    const r = await host.call("read_text_file_fs", { path: `${tmp.root}/docs/a.txt` });
    assert.deepEqual(r, { content: [{ type: "text", text: "alpha\nbeta\n" }], isError: false });

    // Same admission as declared tools: a wrong type never reaches the server.
    const refused = await host.call("read_text_file_fs", { path: 5 });
    assert.equal(refused.isError, true);
    assert.match((refused.content[0] as { text: string }).text, /path/);

    // The server's own refusal (outside its allowed directory) is an error result.
    const outside = await host.call("read_text_file_fs", { path: `${tmp.root}/app/README.md` });
    assert.equal(outside.isError, true);
  } finally {
    const record = host.servers[0].record;
    await host.close();
    if (record) assert.deepEqual(groupMembers(record.pgid), []);
    await tmp.cleanup();
  }
});
