/**
 * Issue 16: a symlink inside a pinned execution-path folder is pinned by its target text
 * only, so code reached through it would run unpinned. `toolhost lock` refuses a tool
 * whose pinned folder links outside its pinned paths, naming the link; links that stay
 * inside are locked.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { linkLeaving } from "../../lib/pins/link_scope.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { runCapture } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.run]
description = "Run."
protocol = "plain"
command = "tools/run.sh"
args = []
execution_paths = ["app/tools"]
`;

async function ws(link: string, target: string) {
  const tmp = await tempWorkspace(TOML, {
    "app/tools/run.sh": { text: "#!/bin/sh\n. ./lib/helper.sh\n", mode: 0o755 },
    "app/tools/real/helper.sh": "echo ok\n",
    "app/outside/helper.sh": "echo evil\n",
  });
  Deno.symlinkSync(target, `${tmp.root}/app/tools/${link}`);
  return tmp;
}

for (
  const [what, target] of [
    ["a sibling folder", "../outside"],
    ["an absolute path", "/etc"],
    ["a climb through its own folder", "real/../../outside"],
  ]
) {
  Deno.test(`lock refuses a pinned folder whose link leads to ${what}, naming the link`, async () => {
    await using tmp = await ws("lib", target);
    const r = await runCapture(["lock", "--repo", tmp.root]);
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /execution path `app\/tools` holds a symlink `app\/tools\/lib` that leads outside/,
    );
    assert.match(r.err, /toolhost\.lock was not written/);
    assert.throws(() => Deno.statSync(`${tmp.root}/toolhost.lock`), Deno.errors.NotFound);
  });
}

Deno.test("a link to a link that leaves is refused too; one that stays inside is locked", async () => {
  await using tmp = await ws("lib", "real");
  const w = await loadWorkspace(tmp.root);
  assert.equal(await linkLeaving(tmp.root, ["app/tools"]), undefined);
  const lock = await buildLock(w, { stateDir: `${tmp.root}/.state` });
  assert.ok(lock.evals["app/review"].tools.run_app);
  // A chain: an inside link to another inside link that points out.
  Deno.symlinkSync("../outside", `${tmp.root}/app/tools/hop`);
  Deno.symlinkSync("hop", `${tmp.root}/app/tools/chain`);
  assert.deepEqual(await linkLeaving(tmp.root, ["app/tools"]), {
    declared: "app/tools",
    link: "app/tools/chain",
  });
  // A link into another pinned path of the same tool is fine.
  assert.equal(await linkLeaving(tmp.root, ["app/tools", "app/outside"]), undefined);
});

Deno.test("a link that names the workspace by where it lies now is refused: it leaves once moved", async () => {
  await using tmp = await ws("lib", "real");
  const name = tmp.root.split("/").pop()!;
  // Both resolve inside the pinned folder today; moved (a checkout elsewhere, the lock
  // committed with it), the same target text leads to wherever the old place is.
  for (const target of [`${tmp.root}/app/tools/real`, `../../../${name}/app/tools/real`]) {
    Deno.removeSync(`${tmp.root}/app/tools/lib`);
    Deno.symlinkSync(target, `${tmp.root}/app/tools/lib`);
    assert.deepEqual(await linkLeaving(tmp.root, ["app/tools"]), {
      declared: "app/tools",
      link: "app/tools/lib",
    }, target);
  }
  // Climbing to the root and back down stays inside the workspace: still fine.
  Deno.removeSync(`${tmp.root}/app/tools/lib`);
  Deno.symlinkSync("../../app/tools/real", `${tmp.root}/app/tools/lib`);
  assert.equal(await linkLeaving(tmp.root, ["app/tools"]), undefined);
});
