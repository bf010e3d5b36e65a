/**
 * A script argument that is a symlink in the workspace leading outside it
 * (`args = ["tools/run.sh"]`, `tools/run.sh -> ~/bin/run.sh`) runs the file it leads to as
 * surely as a plain one: the lock pins it (by what it leads to) instead of leaving it out,
 * so an edit of the file outside is drift and never runs.
 */

import assert from "node:assert/strict";
import { symlinkSync } from "node:fs";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.run]
description = "Run."
protocol = "plain"
command = "sh"
args = ["tools/run.sh"]
`;

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

Deno.test("an argument linking out of the workspace is pinned by what it leads to", async () => {
  await using outside = await tempWorkspace("", { "run.sh": "echo ran\n" });
  await using tmp = await tempWorkspace(TOML, { "app/tools/.keep": "" });
  symlinkSync(`${outside.root}/run.sh`, `${tmp.root}/app/tools/run.sh`);
  const env = { PATH: "/usr/bin:/bin" };
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const reg = await Registry.open(ws, "app/review", { stateDir, env });
  try {
    assert.equal(reg.lock!.locked!.tools.run_app.programs["operand 0"]?.path, "app/tools/run.sh");
    assert.equal(text(await reg.call("run_app", {})), "ran\n");
    await Deno.writeTextFile(`${outside.root}/run.sh`, "echo pwned\n");
    const r = await reg.call("run_app", {});
    assert.match(text(r), /LOCK_MISMATCH/);
    assert.doesNotMatch(text(r), /pwned/);
  } finally {
    await reg.close();
  }
});
