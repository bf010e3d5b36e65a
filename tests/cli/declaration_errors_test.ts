/**
 * A manifest that does not load stops every workspace command with exit 1, nothing on stdout
 * (not even with `--json`), and `toolhost.toml:LINE: key.path: ...` on stderr, as README says
 * — all but `sweep`, which needs only the state directory.
 */

import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCapture } from "../helpers/cli.ts";
import { BASE_TOML, withWorkspace } from "../helpers/workspace.ts";

Deno.test("a mistyped key: exit 1, its line, path and likely key on stderr, stdout empty", async () => {
  const toml = `${BASE_TOML}\n[artifacts.app.views.agent_tools.read]\nbuiltin = "read"\n` +
    `descriptoin = "x"\n`;
  await withWorkspace(toml, { "app/README.md": "# app\n" }, async (root) => {
    for (
      const argv of [
        ["tools", "check", "--json"],
        ["tools", "list", "app/review", "--json"],
        ["graph"],
      ]
    ) {
      const r = await runCapture([...argv, "--repo", root]);
      assert.equal(r.code, 1, `${argv.join(" ")}: ${r.err}`);
      assert.equal(r.out, "");
      assert.match(
        r.err,
        /^toolhost: declaration error:\n {2}toolhost\.toml:9: artifacts\.app\.views\.agent_tools\.read\.descriptoin: unknown key \(did you mean `description`\?\)/,
      );
    }
  });
});

Deno.test("sweep runs when the manifest does not load, and with --state-dir alone", async () => {
  const toml = `${BASE_TOML}\n[artifacts.app.views.agent_tools.read]\nbuiltin = "read"\n` +
    `descriptoin = "x"\n`;
  await withWorkspace(toml, { "app/README.md": "# app\n" }, async (root) => {
    const r = await runCapture(["sweep", "--repo", root, "--json"]);
    assert.equal(r.code, 0, r.err);
    assert.equal(JSON.parse(r.out).failed, 0);
    const state = await mkdtemp(join(tmpdir(), "toolhost-sweep-alone-"));
    try {
      const alone = await runCapture(["sweep", "--state-dir", state]);
      assert.equal(alone.code, 0, alone.err);
      assert.match(alone.out, /^swept 0 stale session\(s\)/);
    } finally {
      await rm(state, { recursive: true, force: true });
    }
  });
});
