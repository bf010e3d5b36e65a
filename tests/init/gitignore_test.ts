/**
 * `toolhost init` adds `.toolhost/` to the workspace's `.gitignore`: creating it, keeping
 * its content, idempotent, never through a symlink; and its generated descriptions read
 * well whatever the Artifact is called (issue 17).
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ignoreStateDir } from "../../lib/init/gitignore.ts";
import { init, tempDir } from "./_helpers.ts";
import { runCapture } from "../helpers/cli.ts";

Deno.test("init creates .gitignore with .toolhost/, and a second init leaves it as it is", async () => {
  await using tmp = tempDir();
  const ws = join(tmp.path, "ws");
  const out = await init(["plain-tool", "find", "--repo", ws]);
  assert.match(out, /\.gitignore +created: \.toolhost\//);
  const first = readFileSync(join(ws, ".gitignore"), "utf8");
  assert.match(first, /^\.toolhost\/$/m);
  const again = await init(["plain-tool", "grab", "--repo", ws]);
  assert.doesNotMatch(again, /\.gitignore/);
  assert.equal(readFileSync(join(ws, ".gitignore"), "utf8"), first);
});

Deno.test("an existing .gitignore keeps its content; .toolhost/ is appended once", async () => {
  await using tmp = tempDir();
  const gi = join(tmp.path, ".gitignore");
  writeFileSync(gi, "node_modules\n*.log"); // no final newline
  assert.equal(ignoreStateDir(tmp.path), "added");
  assert.equal(readFileSync(gi, "utf8"), "node_modules\n*.log\n.toolhost/\n");
  assert.equal(ignoreStateDir(tmp.path), "present");
  assert.equal(readFileSync(gi, "utf8"), "node_modules\n*.log\n.toolhost/\n");
  writeFileSync(gi, "dist/\n/.toolhost\n");
  assert.equal(ignoreStateDir(tmp.path), "present", "an equivalent entry counts");
});

Deno.test("a .gitignore that is a symlink is never written through", async () => {
  await using tmp = tempDir();
  const target = join(tmp.path, "elsewhere");
  writeFileSync(target, "keep\n");
  symlinkSync(target, join(tmp.path, ".gitignore"));
  assert.equal(ignoreStateDir(tmp.path), "skipped");
  assert.equal(readFileSync(target, "utf8"), "keep\n");
});

Deno.test('generated descriptions read well for any Artifact name (no "tools\'s")', async () => {
  await using tmp = tempDir();
  const ws = join(tmp.path, "ws");
  for (const kind of ["plain-tool", "json-tool", "harness"]) {
    await init([kind, `k${kind.length}`, "--repo", ws]);
  }
  const manifest = readFileSync(join(ws, "toolhost.toml"), "utf8");
  assert.doesNotMatch(manifest, /\{artifactName\}'s/);
  const r = await runCapture(["tools", "list", "--eval", "tools/agent", "--repo", ws, "--json"]);
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.out, /tools's/);
});
