/**
 * `tools list` shows the artifact tools of an agent eval; `tools call` of one says why it
 * cannot run it alone (exit 2, no trace), rather than "no tool" for a name just listed.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runCapture } from "../helpers/cli.ts";
import { BASE_FILES, BASE_TOML, withWorkspace } from "../helpers/workspace.ts";

Deno.test("tools call get_artifact_field / search_artifact_content: points at serve", async () => {
  await withWorkspace(BASE_TOML, BASE_FILES, async (root) => {
    const list = await runCapture(["tools", "list", "app/review", "--repo", root]);
    assert.match(list.out, /get_artifact_field/);
    for (const tool of ["get_artifact_field", "search_artifact_content"]) {
      const r = await runCapture(["tools", "call", tool, "--eval", "app/review", "--repo", root]);
      assert.equal(r.code, 2);
      assert.equal(r.out, "");
      assert.equal(
        r.err,
        `toolhost: \`${tool}\` reads the artifacts earlier calls of the same MCP connection ` +
          "returned, so it is served by `toolhost serve`; `tools call` runs one call on its own " +
          "[UNKNOWN_TOOL]\n",
      );
    }
  });
});
