/**
 * Artifact roots stay inside the workspace: a root that is a symlink to elsewhere is a
 * declaration error at load, and a root swapped for one after load admits nothing at the
 * call (fail-closed, seed 001); an error result's envelope is validated too.
 */
import assert from "node:assert/strict";
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

// Prints an envelope naming $ROOT/out/f.txt (ROOT = the workspace), as a success or error.
const TOOL = `#!/bin/sh
cat >/dev/null
env='{\\"schema\\":\\"odek.tool-result/v1\\",\\"text\\":\\"made\\",\\"artifacts\\":[{\\"schema\\":\\"odek.artifact-ref/v1\\",\\"id\\":\\"f\\",\\"uri\\":\\"file://'"$ROOT"'/out/f.txt\\",\\"media_type\\":\\"text/plain\\"}]}'
printf '{"isError":%s,"content":[{"type":"text","text":"%s"}]}' "\${1:-false}" "$env"
`;

const toml = (roots = '["out"]') =>
  `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n\n` +
  `[artifacts.app.views.agent_tools.make]\ndescription = "Make."\nprotocol = "json"\n` +
  `command = "tools/make.sh"\nargs = []\nartifact_roots = ${roots}\n\n` +
  `[artifacts.app.views.agent_tools.fail]\ndescription = "Fail."\nprotocol = "json"\n` +
  `command = "tools/make.sh"\nargs = ["true"]\nartifact_roots = ${roots}\n`;

const FILES = {
  "app/tools/make.sh": { text: TOOL, mode: 0o755 },
  "out/f.txt": "inside\n",
};
const text = (r: ToolResult) => JSON.stringify(r.content);

async function withCall(
  fn: (call: (t: string) => Promise<ToolResult>, root: string) => Promise<void>,
) {
  await using tmp = await tempWorkspace(toml(), FILES);
  const ws = await loadWorkspace(tmp.root);
  const env = { ...Deno.env.toObject(), ROOT: tmp.root };
  const reg = await Registry.open(ws, "app/review", { env });
  try {
    await fn((t) => reg.call(t, {}), tmp.root);
  } finally {
    await reg.close();
  }
}

Deno.test("an artifact root that is a symlink out of the workspace is a declaration error", async () => {
  await using outside = await tempWorkspace("", { "f.txt": "secret\n" });
  await using tmp = await tempWorkspace(toml(), {
    "app/tools/make.sh": { text: TOOL, mode: 0o755 },
  });
  symlinkSync(outside.root, join(tmp.root, "out"));
  await assert.rejects(loadWorkspace(tmp.root), /artifact_roots\[0\].*outside the workspace/s);
  // A link that stays inside is fine.
  await using ok = await tempWorkspace(toml(), { ...FILES, "real/f.txt": "x\n" });
  Deno.removeSync(join(ok.root, "out"), { recursive: true });
  symlinkSync("real", join(ok.root, "out"));
  await loadWorkspace(ok.root);
});

Deno.test("a root swapped for a link out of the workspace after load admits nothing", async () => {
  await withCall(async (call, root) => {
    const good = await call("make_app");
    assert.equal(good.isError, false, text(good));
    assert.match(text(good), /\[artifact\] id=\\"f\\"/);
    await using outside = await tempWorkspace("", { "f.txt": "secret\n" });
    renameSync(join(root, "out"), join(root, "out.real"));
    mkdirSync(join(outside.root, "sub"));
    writeFileSync(join(outside.root, "sub", "f.txt"), "secret\n");
    symlinkSync(join(outside.root, "sub"), join(root, "out"));
    const r = await call("make_app");
    assert.equal(r.isError, true, text(r));
    assert.equal(text(r).includes(root), false);
    assert.equal(text(r).includes("secret"), false);
  });
});

Deno.test("an error result's envelope is validated and rendered, never passed on raw", async () => {
  await withCall(async (call, root) => {
    const r = await call("fail_app");
    assert.equal(r.isError, true);
    assert.match(text(r), /\[artifact\] id=\\"f\\"/);
    assert.equal(text(r).includes(root), false, "a physical path was shown");
    assert.equal(text(r).includes("odek.tool-result"), false);
  });
});
