/**
 * The native `git_*` tools run a program too: `git`, found on PATH. The lock pins it like
 * a command tool's program, and before every call a `git` swapped or appearing in an
 * earlier PATH folder is drift: the call is refused and the other `git` never runs.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.status]
builtin = "git_status"
`;

const HAS_GIT = (() => {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const text = (r: { content: unknown[] }) =>
  r.content.map((b) => (b as { text?: string }).text ?? "").join("");

Deno.test({
  name: "a git tool's `git` is locked; one planted earlier on PATH is refused, never run",
  ignore: !HAS_GIT,
  fn: async () => {
    const tmp = await tempWorkspace(TOML, { "app/a.txt": "a\n", "bin0/.keep": "" });
    await using _ = tmp;
    execFileSync("git", ["init", "-q"], { cwd: tmp.root, stdio: "ignore" });
    const env = { PATH: `${tmp.root}/bin0:/usr/local/bin:/usr/bin:/bin`, HOME: tmp.root };
    const stateDir = `${tmp.root}/.state`;
    const ws = await loadWorkspace(tmp.root);
    await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
    const reg = await Registry.open(ws, "app/review", { stateDir, env });
    try {
      const pins = reg.lock!.locked!.tools.status_app.programs;
      assert.match(pins.command?.path ?? "", /\/git$/);
      assert.equal((await reg.call("status_app", {})).isError, false);
      const marker = `${tmp.root}/ran`;
      await Deno.writeTextFile(`${tmp.root}/bin0/git`, `#!/bin/sh\ntouch '${marker}'\n`, {
        mode: 0o755,
      });
      await Deno.chmod(`${tmp.root}/bin0/git`, 0o755);
      const r = await reg.call("status_app", {});
      assert.equal(r.isError, true);
      assert.match(text(r), /LOCK_MISMATCH/);
      assert.equal(await Deno.stat(marker).then(() => true, () => false), false);
    } finally {
      await reg.close();
    }
  },
});
