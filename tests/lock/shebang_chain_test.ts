/**
 * The lock pins every program the kernel runs for a command, not only the first `#!` level:
 * a relative interpreter (`#!tools/interp`, opened by the kernel from the tool's working
 * directory, not toolhost's), and an interpreter that is itself a script (its own `#!`
 * line, and what its `env` finds on PATH). Changing any of them after `toolhost lock` is
 * drift: the tool is refused and never runs.
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

[artifacts.app.views.agent_tools.rel]
description = "Relative interpreter."
protocol = "plain"
command = "tools/rel"
args = []

[artifacts.app.views.agent_tools.nest]
description = "Nested interpreter."
protocol = "plain"
command = "tools/nest"
args = []
`;

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

async function setup() {
  const tmp = await tempWorkspace(TOML, {
    "app/tools/rel": { text: "#!tools/interp\n", mode: 0o755 },
    "app/tools/interp": { text: "#!/bin/sh\necho interp\n", mode: 0o755 },
    "app/tools/nest": { text: "#!/placeholder\n", mode: 0o755 },
    "app/tools/wrap": { text: "#!/usr/bin/env nestsh\n", mode: 0o755 },
    "bin0/.keep": "",
    "bin1/nestsh": { text: "#!/bin/sh\necho nested\n", mode: 0o755 },
  });
  Deno.writeTextFileSync(`${tmp.root}/app/tools/nest`, `#!${tmp.root}/app/tools/wrap\n`);
  const env = { PATH: `${tmp.root}/bin0:${tmp.root}/bin1:/usr/bin:/bin` };
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const open = () => Registry.open(ws, "app/review", { stateDir, env });
  return { tmp, open };
}

Deno.test("a relative `#!` interpreter is pinned from the tool's working directory", async () => {
  const { tmp, open } = await setup();
  try {
    const reg = await open();
    try {
      const pins = reg.lock!.locked!.tools.rel_app.programs;
      assert.equal(pins.interpreter?.path, "app/tools/interp");
      assert.equal(text(await reg.call("rel_app", {})), "interp\n");
      // Changed while the registry is open: refused before it runs.
      await Deno.writeTextFile(`${tmp.root}/app/tools/interp`, "#!/bin/sh\necho pwned\n");
      const r = await reg.call("rel_app", {});
      assert.match(text(r), /LOCK_MISMATCH/);
      assert.doesNotMatch(text(r), /pwned/);
    } finally {
      await reg.close();
    }
    const again = await open(); // and at the next open
    try {
      assert.match(text(await again.call("rel_app", {})), /LOCK_MISMATCH/);
    } finally {
      await again.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("an interpreter that is a script: its own `#!` and `env` program are pinned", async () => {
  const { tmp, open } = await setup();
  try {
    const reg = await open();
    try {
      const pins = reg.lock!.locked!.tools.nest_app.programs;
      assert.equal(pins.interpreter?.path, "app/tools/wrap");
      assert.equal(pins["interpreter 2"]?.path, "/usr/bin/env");
      assert.equal(pins["interpreter 2 program"]?.path, "bin1/nestsh");
      assert.equal(text(await reg.call("nest_app", {})), "nested\n");
      // An earlier PATH entry for the nested `env` program: refused.
      await Deno.writeTextFile(`${tmp.root}/bin0/nestsh`, "#!/bin/sh\necho pwned\n");
      await Deno.chmod(`${tmp.root}/bin0/nestsh`, 0o755);
      const r = await reg.call("nest_app", {});
      assert.match(text(r), /LOCK_MISMATCH/);
      assert.doesNotMatch(text(r), /pwned/);
    } finally {
      await reg.close();
    }
    await Deno.remove(`${tmp.root}/bin0/nestsh`);
    await Deno.writeTextFile(`${tmp.root}/bin1/nestsh`, "#!/bin/sh\necho pwned\n");
    const again = await open(); // the nested program's bytes changed
    try {
      const r = await again.call("nest_app", {});
      assert.match(text(r), /LOCK_MISMATCH/);
      assert.doesNotMatch(text(r), /pwned/);
    } finally {
      await again.close();
    }
  } finally {
    await tmp.cleanup();
  }
});
