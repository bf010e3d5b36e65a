/**
 * `tools call` with an execution path that cannot be pinned says which declared path,
 * that it is relative to the workspace root, and what to do — with a did-you-mean when the
 * path exists inside a folder Artifact (commands are relative to their Artifact's folder,
 * execution paths to the root, and the two are easily mixed up). A pinned path that
 * changes while the registry lives says the same about the root, and how to pin it anew.
 */

import assert from "node:assert/strict";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { runCapture } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

function toml(executionPath: string): string {
  return `[artifacts.tools]
path = "tools"

[artifacts.tools.evals.agent]
audience = "agent"

[artifacts.tools.views.agent_tools.finder]
description = "Find."
protocol = "plain"
command = "./finder.sh"
args = []
execution_paths = [${JSON.stringify(executionPath)}]
`;
}

const FILES = { "tools/finder.sh": { text: "#!/bin/sh\necho found\n", mode: 0o755 } };

Deno.test("tools call: an execution path written relative to the Artifact gets a did-you-mean", async () => {
  await using ws = await tempWorkspace(toml("finder.sh"), FILES);
  const argv = ["tools", "call", "finder_tools", "--eval", "tools/agent", "--repo", ws.root];
  const r = await runCapture(argv);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.err, /finder_tools: execution path "finder\.sh" \(relative to the workspace root/);
  assert.match(r.err, /it is missing; fix it in execution_paths or remove it/);
  assert.match(r.err, /Did you mean `tools\/finder\.sh` \(in Artifact `tools`\)\?/);
  assert.ok(!r.err.includes(ws.root), "the message names a physical path");
});

Deno.test("tools call: a missing execution path with no near miss gets no did-you-mean", async () => {
  await using ws = await tempWorkspace(toml("tools/nothing.sh"), FILES);
  const argv = ["tools", "call", "finder_tools", "--eval", "tools/agent", "--repo", ws.root];
  const r = await runCapture(argv);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.err, /"tools\/nothing\.sh" \(relative to the workspace root/);
  assert.doesNotMatch(r.err, /Did you mean/);
});

Deno.test("a pinned path changed while the registry lives: root-relative, and how to re-pin", async () => {
  await using ws = await tempWorkspace(toml("tools/finder.sh"), FILES);
  const reg = await Registry.open(await loadWorkspace(ws.root), "tools/agent", {
    stateDir: `${ws.root}/.state`,
  });
  try {
    await Deno.writeTextFile(`${ws.root}/tools/finder.sh`, "#!/bin/sh\necho changed\n");
    const r = await reg.call("finder_tools", {});
    assert.equal(r.isError, true);
    const text = (r.content[0] as { text: string }).text;
    assert.match(text, /execution path `tools\/finder\.sh` of the tool `finder_tools` changed/);
    assert.match(text, /\(the path is relative to the workspace root\)/);
    assert.match(text, /run the command again, or restart `toolhost serve`\) to pin it anew/);
  } finally {
    await reg.close();
  }
});

Deno.test("tools call: no did-you-mean through a symlink (it would tell what exists outside)", async () => {
  await using outside = await tempWorkspace("", {
    "finder.sh": { text: "#!/bin/sh\n", mode: 0o755 },
  });
  await using ws = await tempWorkspace(toml("ext/finder.sh"), FILES);
  Deno.symlinkSync(outside.root, `${ws.root}/tools/ext`);
  const argv = ["tools", "call", "finder_tools", "--eval", "tools/agent", "--repo", ws.root];
  const r = await runCapture(argv);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.err, /"ext\/finder\.sh" \(relative to the workspace root/);
  assert.doesNotMatch(r.err, /Did you mean/);
});
