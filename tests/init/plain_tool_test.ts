/**
 * `toolhost init plain-tool`: the scaffold validates, passes `tools check`, its own
 * `node --test` file (with and without TOOLHOST_BIN), and works through the registry —
 * into a new workspace and appended to an existing manifest.
 */

import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import {
  assertGeneratedTestPasses,
  assertToolsCheck,
  EXISTING_TOML,
  init,
  tempDir,
  toolhostWrapper,
  writeExisting,
} from "./_helpers.ts";

Deno.test("init plain-tool into a new workspace with --artifact: a working sh tool and its test", async () => {
  await using tmp = tempDir();
  const ws = join(tmp.path, "ws");
  const out = await init(["plain-tool", "find", "--repo", ws, "--artifact", "docs"]);
  assert.match(out, /^Created plain-tool `find` in Artifact `docs`:/);
  assert.match(out, /toolhost tools call find_docs --eval docs\/agent --args '\{"text":"find"\}'/);
  assert.equal(statSync(join(ws, "docs/find.sh")).mode & 0o777, 0o755);
  assert.ok(readFileSync(join(ws, "docs/find.sh"), "utf8").startsWith("#!/bin/sh\n"));

  const w = await loadWorkspace(ws);
  assert.deepEqual([...w.evals.keys()], ["docs/agent"]);
  await assertToolsCheck(ws);
  await assertGeneratedTestPasses(join(ws, "docs/find.test.mjs"), ws, 4);
  await assertGeneratedTestPasses(join(ws, "docs/find.test.mjs"), ws, 4, toolhostWrapper(tmp.path));

  writeFileSync(join(ws, "docs/notes.txt"), "one\ntwo $(x); 'three'\n");
  const reg = await Registry.open(w, "docs/agent", { stateDir: join(tmp.path, "state") });
  try {
    assert.deepEqual(await reg.call("find_docs", { text: "$(x); 'three'" }), {
      content: [{ type: "text", text: "./notes.txt:2:two $(x); 'three'\n" }],
      isError: false,
    });
    assert.deepEqual(await reg.call("find_docs", { text: "absent-text-42" }), {
      content: [{ type: "text", text: "No line contains that text.\n" }],
      isError: false,
    });
  } finally {
    await reg.close();
  }
});

Deno.test("init plain-tool appended to an existing manifest", async () => {
  await using tmp = tempDir();
  writeExisting(tmp.path);
  await init(["plain-tool", "find", "--repo", tmp.path, "--artifact", "code"]);
  const text = readFileSync(join(tmp.path, "toolhost.toml"), "utf8");
  assert.ok(text.startsWith(EXISTING_TOML));
  const w = await loadWorkspace(tmp.path);
  await assertToolsCheck(tmp.path, "code/review");
  const file = join(tmp.path, "src/code/find.test.mjs");
  await assertGeneratedTestPasses(file, tmp.path, 4);

  const reg = await Registry.open(w, "code/review", { stateDir: join(tmp.path, "state") });
  try {
    assert.deepEqual(await reg.call("find_code", { text: "hello" }), {
      content: [{ type: "text", text: "./main.txt:1:hello\n" }],
      isError: false,
    });
  } finally {
    await reg.close();
  }
});
