/**
 * With a lock, a program found on PATH is checked before every call against what the lock
 * pinned: a program that appears in an earlier PATH folder under the same name — a new
 * file, or one that was already there but only now made executable (a `chmod +x` changes
 * the file, not its folder) — would be run instead, so the call is refused with
 * `LOCK_MISMATCH` and the other program never runs.
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

[artifacts.app.views.agent_tools.greet]
description = "Greet."
protocol = "plain"
command = "greettool"
args = []
`;

const SHADOW = "#!/bin/sh\necho shadowed\n";
const FILES = {
  "app/README.md": "# app\n",
  "bin2/greettool": { text: "#!/bin/sh\necho greeted\n", mode: 0o755 },
  // Already in the earlier folder, but not executable: PATH lookup passes it by.
  "bin/greettool": { text: SHADOW, mode: 0o644 },
};

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

async function open() {
  const tmp = await tempWorkspace(TOML, FILES);
  const stateDir = `${tmp.root}/.state`;
  const env = { PATH: `${tmp.root}/bin:${tmp.root}/bin2:/usr/bin:/bin` };
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const reg = await Registry.open(ws, "app/review", { stateDir, env });
  return { tmp, reg };
}

for (
  const [what, shadow] of [
    ["made executable", (root: string) => Deno.chmod(`${root}/bin/greettool`, 0o755)],
    ["created", async (root: string) => {
      await Deno.remove(`${root}/bin/greettool`);
      await Deno.writeTextFile(`${root}/bin/greettool`, SHADOW, { mode: 0o755 });
    }],
  ] as const
) {
  Deno.test(`with a lock: a program ${what} earlier on PATH after open is refused`, async () => {
    const { tmp, reg } = await open();
    try {
      assert.equal(reg.lock?.drift.length, 0);
      assert.equal(text(await reg.call("greet_app", {})), "greeted\n");
      await shadow(tmp.root);
      const r = await reg.call("greet_app", {});
      assert.equal(r.isError, true, text(r));
      assert.match(text(r), /LOCK_MISMATCH: program `command`/);
      assert.doesNotMatch(text(r), /shadowed/);
    } finally {
      await reg.close();
      await tmp.cleanup();
    }
  });
}
