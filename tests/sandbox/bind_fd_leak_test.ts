/**
 * A sandbox's bind sources are opened as descriptors (lib/sandbox/bind_open.ts) that
 * bwrap mounts from: toolhost closes every one once the spawn has returned, cold or
 * warm (a spare's, and those a `take` opens to compare), so 200 confined calls leave
 * toolhost holding no descriptor of a bound path and hardly more of the workspace than
 * before (bar a few of the warm pool's own). Nor does the confined tool get one: bwrap closes
 * each after its mount.
 */

import assert from "node:assert/strict";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

// Prints the descriptors it holds beyond 0-2 and what they name.
const TOOL = `#!/bin/sh
for f in /proc/self/fd/*; do n=\${f##*/}; [ "$n" -gt 2 ] && echo "fd $n $(readlink "$f")"; done
echo done
`;

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
  `\n[artifacts.app.views.agent_tools.fds]\ndescription = "fds"\nprotocol = "plain"\n` +
  `command = "./tool.sh"\nargs = []\nsandbox = "write"\nsandbox_read = ["data", "sub/more"]\n`;

const CALLS = 200;

/** This process's descriptors and what they name. */
function ownFds(): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of Deno.readDirSync("/proc/self/fd")) {
    try {
      out.set(e.name, Deno.readLinkSync(`/proc/self/fd/${e.name}`));
    } catch { /* the listing's own descriptor, closed by now */ }
  }
  return out;
}

for (const warm of [false, true]) {
  Deno.test(`${CALLS} confined calls leak no bind descriptor (${warm ? "warm" : "cold"})`, async (t) => {
    const skip = skipReason();
    if (skip !== undefined) return printSkip(t.name, skip);
    await using ws = await tempWorkspace(TOML, {
      "app/tool.sh": { text: TOOL, mode: 0o755 },
      "data/a.txt": "a\n",
      "sub/more/b.txt": "b\n",
    });
    const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
      stateDir: `${ws.root}/.toolhost/state`,
      env: { PATH: "/usr/bin:/bin" },
      warmSandboxes: warm,
    });
    try {
      const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;
      const first = text(await reg.call("fds_app", {}));
      assert.match(first, /done/);
      // The tool holds nothing of toolhost's: no descriptor naming the workspace.
      assert.ok(!first.includes(ws.root), first);
      const inWs = () => [...ownFds().values()].filter((v) => v.startsWith(`${ws.root}/`));
      const before = inWs().length;
      for (let i = 0; i < CALLS; i++) assert.match(text(await reg.call("fds_app", {})), /done/);
      const after = inWs();
      const bound = after.filter((v) =>
        [`${ws.root}/data`, `${ws.root}/sub`, `${ws.root}/app`].some((p) => v.startsWith(p))
      );
      assert.deepEqual(bound, [], "descriptors of bound paths are still open");
      // A leak of one descriptor per bind per call (its call dirs are bound too) would be
      // hundreds. (Only the workspace's: other test files may run in this process.)
      assert.ok(after.length - before < 16, `${before} descriptors before, ${after.length} after`);
    } finally {
      await reg.close();
    }
  });
}
