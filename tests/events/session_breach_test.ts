/**
 * A tool session's harness that breaches its limit is heard by the event listener of the
 * call that started the session, even though the breach is settled when the session is
 * reaped, outside that call (the guard captures the listener when it opens):
 * `serve --http`'s `toolhost_limit_breaches_total` counts it.
 */

import assert from "node:assert/strict";
import { type CallEvent, withCallEvents } from "../../lib/events/call_events.ts";
import { currentEnforcement } from "../../lib/limits/enforcement.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const HOG = `const keep = [];
for (;;) { const b = Buffer.alloc(8 << 20); b.fill(1); keep.push(b); }
`;
const HARNESS = `#!/bin/sh
cat >/dev/null
case "$1" in
  start) echo ready; exec node "$(dirname "$0")/hog.mjs" ;;
  act) sleep 30 ;;
  stop) exit 0 ;;
esac
`;
const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n
[artifacts.app.views.agent_sessions.s]
max_memory_mb = 96
start = { command = "tools/harness.sh", args = ["start"] }
stop = { command = "tools/harness.sh", args = ["stop"] }

[artifacts.app.views.agent_tools.act]
session = "s"
description = "act"
protocol = "plain"
command = "tools/harness.sh"
args = ["act"]
`;

const enforcement = currentEnforcement();
if (enforcement.mode === "none") {
  console.log(`SKIP session breach event: limits unenforceable here (${enforcement.reason})`);
}

Deno.test({
  name: "a session harness breach is heard by the listener of the call that started it",
  ignore: enforcement.mode === "none",
  async fn() {
    const tmp = await tempWorkspace(TOML, {
      "app/README.md": "# app\n",
      "app/tools/hog.mjs": { text: HOG, mode: 0o644 },
      "app/tools/harness.sh": { text: HARNESS, mode: 0o755 },
    });
    const ws = await loadWorkspace(tmp.root);
    const reg = await Registry.open(ws, "app/review", { stateDir: `${tmp.root}/.state` });
    const heard: CallEvent[] = [];
    try {
      const r = await withCallEvents((e) => heard.push(e), () => reg.call("act_app", {}));
      assert.equal(r.isError, true);
      assert.match((r.content[0] as { text: string }).text, /resource limit: memory/);
      // The harness is settled (and the breach reported) when the session is reaped: at
      // the latest by close(), which runs outside the call's context.
      await reg.close();
      assert.deepEqual(heard, [{ kind: "limit_breach", limit: "memory" }]);
    } finally {
      await reg.close();
      await tmp.cleanup();
    }
  },
});
