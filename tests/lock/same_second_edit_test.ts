/**
 * Under Deno a file's ctime is known to the whole second only, and its mtime can be set
 * back by whoever writes it. So an edit of the same size, made in the same second as the
 * pin recorded the file's identity, with its mtime set back, left that identity as it
 * was: the per-call check took the file for unchanged and ran the edit. An identity whose
 * ctime is not older than the second it was taken in vouches for nothing (git's "racily
 * clean"): the file is hashed again at the next check.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import type { Workspace } from "../../lib/workspace/types.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.pinned]
description = "Pinned by an execution path."
protocol = "plain"
command = "sh"
args = ["-c", ". ./tools/pinned.sh"]
execution_paths = ["app/tools/pinned.sh"]

[artifacts.app.views.agent_tools.locked]
description = "Pinned by the lock."
protocol = "plain"
command = "sh"
args = ["tools/locked.sh"]
`;

const GOOD = "echo good\n";
const EVIL = "echo evil\n"; // the same size
const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;
const second = (p: string) => Math.floor(Deno.statSync(p).ctime!.getTime() / 1000);

/**
 * Open a registry right after writing `file`, then edit it (same size, mtime set back) in
 * the same second; retried until the edit lands in that second (a busy machine may cross
 * into the next one). Returns the open registry with the edit in place.
 */
async function editInTheSameSecond(ws: Workspace, file: string, stateDir: string) {
  for (let attempt = 0; attempt < 50; attempt++) {
    Deno.writeTextFileSync(file, GOOD);
    const before = second(file);
    const reg = await Registry.open(ws, "app/review", { stateDir, env: { PATH: "/usr/bin:/bin" } });
    const { atime, mtime } = Deno.statSync(file);
    Deno.writeTextFileSync(file, EVIL);
    Deno.utimeSync(file, atime!, mtime!);
    if (second(file) === before) return reg;
    await reg.close();
  }
  throw new Error("no edit landed in the second of its pin");
}

for (const tool of ["pinned", "locked"]) {
  Deno.test(`a same-size edit in the second of the pin is seen (${tool})`, async () => {
    await using tmp = await tempWorkspace(TOML, {
      "app/tools/pinned.sh": GOOD,
      "app/tools/locked.sh": GOOD,
    });
    const ws = await loadWorkspace(tmp.root);
    const stateDir = `${tmp.root}/.state`;
    await writeLockFile(ws, await buildLock(ws, { stateDir, env: { PATH: "/usr/bin:/bin" } }));
    const reg = await editInTheSameSecond(ws, `${tmp.root}/app/tools/${tool}.sh`, stateDir);
    try {
      const r = await reg.call(`${tool}_app`, {});
      assert.equal(r.isError, true);
      assert.doesNotMatch(text(r), /evil/);
      assert.match(text(r), /changed|LOCK_MISMATCH/);
    } finally {
      await reg.close();
    }
  });
}
