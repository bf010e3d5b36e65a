/**
 * `toolhost init json-tool`: the scaffold validates, passes `tools check`, its own
 * `node --test` file (with and without TOOLHOST_BIN), and works through the registry —
 * into a new workspace and appended to an existing manifest.
 */

import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
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

Deno.test("init json-tool into a new workspace: a manifest, a working tool, a passing test", async () => {
  await using tmp = tempDir();
  const ws = join(tmp.path, "ws");
  const out = await init(["json-tool", "greet", "--repo", ws]);
  assert.match(out, /^Created json-tool `greet` in Artifact `tools`:/);
  assert.match(out, /tools\/greet\.mjs +the tool/);
  assert.match(
    out,
    /toolhost tools call greet_tools --eval tools\/agent --args '\{"who":"world"\}'/,
  );
  assert.match(out, /toolhost serve --eval tools\/agent/);
  assert.equal(statSync(join(ws, "tools/greet.mjs")).mode & 0o777, 0o755);
  assert.equal(statSync(join(ws, "tools/greet.test.mjs")).mode & 0o777, 0o644);

  const w = await loadWorkspace(ws);
  assert.deepEqual([...w.evals.keys()], ["tools/agent"]);
  assert.equal(w.artifacts.get("tools")?.relPath, "tools");
  await assertToolsCheck(ws, "tools/agent");
  await assertGeneratedTestPasses(join(ws, "tools/greet.test.mjs"), ws, 4);
  await assertGeneratedTestPasses(
    join(ws, "tools/greet.test.mjs"),
    ws,
    4,
    toolhostWrapper(tmp.path),
  );

  const reg = await Registry.open(w, "tools/agent", { stateDir: join(tmp.path, "state") });
  try {
    assert.deepEqual(await reg.call("greet_tools", { who: "Ada" }), {
      content: [
        { type: "text", text: "Hello, Ada! (from greet in Artifact tools)" },
        { type: "json", data: { greeting: "Hello, Ada!", artifact: "tools" } },
      ],
      isError: false,
    });
    assert.deepEqual(await reg.call("greet_tools", { who: " " }), {
      content: [{ type: "text", text: 'Give a name in "who"; it was blank.' }],
      isError: true,
    });
    assert.equal((await reg.call("greet_tools", {})).isError, true, "the schema admitted {}");
  } finally {
    await reg.close();
  }
});

Deno.test("init json-tool appended to an existing manifest: kept byte for byte, nested Artifact", async () => {
  await using tmp = tempDir();
  writeExisting(tmp.path);
  const out = await init(["json-tool", "greet", "--repo", tmp.path]);
  assert.match(out, /Artifact `code`/); // the first folder Artifact, not the file one
  assert.match(out, /appended: the declarations/);
  const text = readFileSync(join(tmp.path, "toolhost.toml"), "utf8");
  assert.ok(text.startsWith(EXISTING_TOML), "the user's manifest was rewritten");
  assert.match(text.slice(EXISTING_TOML.length), /^\n# Added by `toolhost init json-tool greet`/);
  assert.ok(!text.includes("evals.agent"), "an eval was added though code/review covers it");

  const w = await loadWorkspace(tmp.path);
  assert.equal(w.artifacts.get("code")?.agentTools.greet?.type, "command");
  await assertToolsCheck(tmp.path);
  const file = join(tmp.path, "src/code/greet.test.mjs");
  await assertGeneratedTestPasses(file, tmp.path, 4);
  await assertGeneratedTestPasses(file, tmp.path, 4, toolhostWrapper(tmp.path));

  const reg = await Registry.open(w, "code/review", { stateDir: join(tmp.path, "state") });
  try {
    const r = await reg.call("greet_code", { who: "Lin" });
    assert.equal(r.isError, false);
    assert.deepEqual(r.content[1], {
      type: "json",
      data: { greeting: "Hello, Lin!", artifact: "code" },
    });
  } finally {
    await reg.close();
  }
});
