/**
 * A state directory inside the workspace that leads through a symlink (a repository
 * shipping `.toolhost/state -> elsewhere`) is refused at Registry.open: calls would
 * otherwise write their directories wherever the link points.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { BASE_FILES, BASE_TOML, tempWorkspace } from "../helpers/workspace.ts";

Deno.test("a linked .toolhost or .toolhost/state is refused; a real or outside one is not", async () => {
  await using outside = await tempWorkspace("", {});
  for (const link of [".toolhost", ".toolhost/state"]) {
    await using tmp = await tempWorkspace(BASE_TOML, BASE_FILES);
    if (link !== ".toolhost") mkdirSync(join(tmp.root, ".toolhost"), { recursive: true });
    symlinkSync(outside.root, join(tmp.root, link));
    const ws = await loadWorkspace(tmp.root);
    await assert.rejects(
      Registry.open(ws, "app/review"),
      (e: Error & { code?: string }) =>
        e.code === "PREPARATION_FAILED" && /symlink/.test(e.message) &&
        !e.message.includes(outside.root),
    );
  }
  assert.deepEqual(readdirSync(outside.root).filter((n) => n !== "toolhost.toml"), []);
  await using ok = await tempWorkspace(BASE_TOML, BASE_FILES);
  const ws = await loadWorkspace(ok.root);
  await (await Registry.open(ws, "app/review")).close();
  await (await Registry.open(ws, "app/review", { stateDir: join(outside.root, "st") })).close();
});

Deno.test("a linked `artifacts` folder in the state dir is refused: nothing is made where it points", async () => {
  await using outside = await tempWorkspace("", {});
  const toml = `${BASE_TOML}
[artifacts.app.views.agent_tools.hi]
description = "Say hi."
protocol = "plain"
command = "echo"
args = ["hi"]
`;
  await using tmp = await tempWorkspace(toml, BASE_FILES);
  for (const stateDir of [join(tmp.root, ".toolhost/state"), join(tmp.root, "../st_out")]) {
    mkdirSync(stateDir, { recursive: true });
    symlinkSync(outside.root, join(stateDir, "artifacts"));
    const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", { stateDir });
    try {
      const refused = await reg.call("hi_app", {}).then(
        (r) => r.isError,
        (e: Error & { code?: string }) =>
          e.code === "PREPARATION_FAILED" && !e.message.includes(outside.root),
      );
      assert.equal(refused, true);
      // Looked at before close: close removes this registry's own folder again.
      assert.deepEqual(readdirSync(outside.root).filter((n) => n !== "toolhost.toml"), []);
    } finally {
      await reg.close();
    }
  }
  Deno.removeSync(join(tmp.root, "../st_out"), { recursive: true });
});
