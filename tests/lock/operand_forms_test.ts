/**
 * A declared argument runs a workspace file in more forms than a bare path: a file
 * Artifact named as a whole argv element (`command = "sh", args = [{ artifact = "job" }]`)
 * and an option's value (`--import=tools/hook.mjs`, here `--lib=tools/lib.sh`). Both are
 * pinned as `operand N`; changing the file after `toolhost lock` is drift, and the tool is
 * refused without running it.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.job]
path = "app/job.sh"

[artifacts.app.evals.review]
audience = "agent"
references = ["job"]

[artifacts.app.views.agent_tools.whole]
description = "Run a file Artifact."
protocol = "json"
command = "sh"
args = [{ artifact = "job" }]

[artifacts.app.views.agent_tools.option]
description = "Run with a library given as an option value."
protocol = "plain"
command = "tools/runner"
args = ["--lib=tools/lib.sh"]
`;

const JOB = `echo '{"content":[{"type":"text","text":"job"}]}'\n`;
const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

async function setup() {
  const tmp = await tempWorkspace(TOML, {
    "app/job.sh": JOB,
    "app/tools/runner": { text: '#!/bin/sh\n. "${1#--lib=}"\n', mode: 0o755 },
    "app/tools/lib.sh": "echo lib\n",
  });
  const env = { PATH: "/usr/bin:/bin" };
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const open = () => Registry.open(ws, "app/review", { stateDir, env });
  return { tmp, open };
}

Deno.test("a file Artifact as a whole argument is pinned; changed, it is refused", async () => {
  const { tmp, open } = await setup();
  await using _ = tmp;
  const reg = await open();
  try {
    assert.equal(reg.lock!.locked!.tools.whole_app.programs["operand 0"]?.path, "app/job.sh");
    assert.equal(text(await reg.call("whole_app", {})), "job");
    await Deno.writeTextFile(`${tmp.root}/app/job.sh`, JOB.replace('"job"', '"pwned"'));
    const r = await reg.call("whole_app", {});
    assert.match(text(r), /LOCK_MISMATCH: program `operand 0`/);
    assert.doesNotMatch(text(r), /pwned/);
  } finally {
    await reg.close();
  }
  const again = await open();
  try {
    assert.match(text(await again.call("whole_app", {})), /LOCK_MISMATCH/);
  } finally {
    await again.close();
  }
});

Deno.test("a workspace file given as an option's value is pinned; changed, it is refused", async () => {
  const { tmp, open } = await setup();
  await using _ = tmp;
  const reg = await open();
  try {
    assert.equal(
      reg.lock!.locked!.tools.option_app.programs["operand 0"]?.path,
      "app/tools/lib.sh",
    );
    assert.equal(text(await reg.call("option_app", {})), "lib\n");
    await Deno.writeTextFile(`${tmp.root}/app/tools/lib.sh`, "echo pwned\n");
    const r = await reg.call("option_app", {});
    assert.match(text(r), /LOCK_MISMATCH: program `operand 0`/);
    assert.doesNotMatch(text(r), /pwned/);
  } finally {
    await reg.close();
  }
});
