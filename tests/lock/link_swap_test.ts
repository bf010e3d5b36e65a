/**
 * `toolhost lock` decides whether a pinned folder's link leads outside its pinned paths on
 * the very link texts its pins hashed, never on a second read: a writer swapping the link
 * between the pin and the check (out when hashed, inside when checked, back after) would
 * otherwise get a leaving link's text locked as fine. The swap here is deterministic: a
 * library plugin's `setup` runs after the registry pinned its paths and before the lock's
 * check.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { extensionPathPins, type PinCache } from "../../lib/lock/extension_pins.ts";
import { leavingLink } from "../../lib/pins/link_scope.ts";
import { snapshotPath } from "../../lib/pins/pin_snapshot.ts";
import { definePlugin } from "../../lib/plugins/mod.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOML = `[plugins]
enable = ["swap"]

[artifacts.app]
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

const FILES = {
  "app/tools/run.sh": { text: "#!/bin/sh\n. ./lib/helper.sh\n", mode: 0o755 },
  "app/tools/real/helper.sh": "echo ok\n",
  "app/outside/helper.sh": "echo evil\n",
};

function relink(path: string, target: string): void {
  Deno.removeSync(path);
  Deno.symlinkSync(target, path);
}

Deno.test("lock checks the link text it hashed: a link swapped inside after the pin is still refused", async () => {
  await using tmp = await tempWorkspace(TOML, FILES);
  const link = `${tmp.root}/app/tools/lib`;
  Deno.symlinkSync("../outside", link);
  let swaps = 0;
  // Runs once the registry has pinned `app/tools` (link text "../outside"), before the
  // lock looks at where its links lead.
  const swap = definePlugin({
    name: "swap",
    setup() {
      relink(link, "real");
      swaps++;
    },
  });
  const ws = await loadWorkspace(tmp.root, { plugins: [swap] });
  await assert.rejects(
    buildLock(ws, { plugins: [swap], stateDir: `${tmp.root}/.state` }),
    /execution path `app\/tools` holds a symlink `app\/tools\/lib` that leads outside/,
  );
  assert.equal(swaps, 1, "the swap ran between the pin and the check");
  // The same workspace, unchanged during the lock, is locked: the link leads inside now.
  const calm = definePlugin({ name: "swap", setup() {} });
  const lock = await buildLock(await loadWorkspace(tmp.root, { plugins: [calm] }), {
    plugins: [calm],
    stateDir: `${tmp.root}/.state`,
  });
  assert.ok(lock.evals["app/review"].tools.run_app);
});

Deno.test("an extension's pins decide its links: a swap after they were taken changes nothing", async () => {
  await using tmp = await tempWorkspace(TOML, FILES);
  const link = `${tmp.root}/app/tools/lib`;
  Deno.symlinkSync("../outside", link);
  const cache: PinCache = new Map();
  await extensionPathPins(tmp.root, { name: "fx", executionPaths: ["app/tools"] }, { cache });
  relink(link, "real");
  assert.deepEqual(leavingLink(tmp.root, [cache.get("app/tools")!]), {
    declared: "app/tools",
    link: "app/tools/lib",
  });
  // Pinned again, the text hashed now is the one checked.
  cache.clear();
  await extensionPathPins(tmp.root, { name: "fx", executionPaths: ["app/tools"] }, { cache });
  assert.equal(leavingLink(tmp.root, [cache.get("app/tools")!]), undefined);
});

Deno.test("overlapping pins that saw a link differently are refused: the workspace changed between them", async () => {
  await using tmp = await tempWorkspace(TOML, FILES);
  const link = `${tmp.root}/app/tools/real/up`;
  Deno.symlinkSync("../../outside", link);
  const outer = await snapshotPath(tmp.root, "app/tools");
  relink(link, ".");
  const inner = await snapshotPath(tmp.root, "app/tools/real");
  // Each alone is what it saw: the outer pin's text leaves, the inner one's stays.
  assert.equal(leavingLink(tmp.root, [inner])?.link, undefined);
  assert.equal(leavingLink(tmp.root, [outer])?.link, "app/tools/real/up");
  // Together they disagree about the same link: neither text is trusted.
  assert.deepEqual(leavingLink(tmp.root, [inner, outer]), {
    declared: "app/tools/real",
    link: "app/tools/real/up",
  });
  // Agreeing pins of a link that stays inside are fine.
  const again = await snapshotPath(tmp.root, "app/tools");
  assert.equal(leavingLink(tmp.root, [inner, again]), undefined);
});
