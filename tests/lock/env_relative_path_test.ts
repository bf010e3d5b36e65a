/**
 * `#!/usr/bin/env X` finds X as `execvp` does: an empty PATH entry (a leading, trailing or
 * doubled `:`) and a relative one (`node_modules/.bin`) are searched from the tool's
 * working directory — inside the workspace. The lock pins the X found there, and one
 * appearing there later (in an entry before the locked one) is drift.
 */

import assert from "node:assert/strict";
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
command = "tools/run"
args = []
`;

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

async function setup(path: string, files: Record<string, { text: string; mode: number }>) {
  const tmp = await tempWorkspace(TOML, {
    "app/tools/run": { text: "#!/usr/bin/env helperprog\n", mode: 0o755 },
    ...files,
  });
  const env = { PATH: path };
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const open = () => Registry.open(ws, "app/review", { stateDir, env });
  return { tmp, open };
}

Deno.test("env's program in a relative PATH entry is pinned; changed, it is refused", async () => {
  const helper = { text: "#!/bin/sh\necho helper\n", mode: 0o755 };
  const { tmp, open } = await setup("node_modules/.bin:/usr/bin:/bin", {
    "app/node_modules/.bin/helperprog": helper,
  });
  await using _ = tmp;
  const reg = await open();
  try {
    const pins = reg.lock!.locked!.tools.run_app.programs;
    assert.equal(pins["interpreter program"]?.path, "app/node_modules/.bin/helperprog");
    assert.equal(text(await reg.call("run_app", {})), "helper\n");
    await Deno.writeTextFile(
      `${tmp.root}/app/node_modules/.bin/helperprog`,
      "#!/bin/sh\necho pwned\n",
    );
    const r = await reg.call("run_app", {});
    assert.match(text(r), /LOCK_MISMATCH/);
    assert.doesNotMatch(text(r), /pwned/);
  } finally {
    await reg.close();
  }
});

Deno.test("env's program appearing in the working directory (an empty PATH entry) is drift", async () => {
  const { tmp, open } = await setup(":/nonexistent-bin", {
    "bin/helperprog": { text: "#!/bin/sh\necho helper\n", mode: 0o755 },
  });
  await using _ = tmp;
  const reg = await open();
  try {
    await Deno.writeTextFile(`${tmp.root}/app/helperprog`, "#!/bin/sh\necho pwned\n", {
      mode: 0o755,
    });
    await Deno.chmod(`${tmp.root}/app/helperprog`, 0o755);
    const r = await reg.call("run_app", {});
    assert.match(text(r), /LOCK_MISMATCH/);
    assert.doesNotMatch(text(r), /pwned/);
  } finally {
    await reg.close();
  }
});
