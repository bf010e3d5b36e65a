/**
 * The workspace of the crash-sweep tests (tests/cli/tools_call_crash_sweep_test.ts,
 * tests/mcp/serve_restart_sweep_test.ts): `stuck_app` never ends, ignores SIGTERM and
 * leaves a `setsid` child, writing both pids to `$PIDDIR`; `hi_app` answers at once.
 */

/** The manifest: `stuck` (tools/stuck.sh) and `hi` (echo hi) in eval `app/review`. */
export const STUCK_TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.stuck]
description = "Never ends, ignores SIGTERM, leaves a setsid child."
protocol = "plain"
command = "tools/stuck.sh"
args = []
timeout_ms = 600000

[artifacts.app.views.agent_tools.hi]
description = "Say hi."
protocol = "plain"
command = "echo"
args = ["hi"]
`;

/** tools/stuck.sh: writes `$PIDDIR/leader.pid` and `$PIDDIR/child.pid`, then loops. */
export const STUCK_SCRIPT = `#!/bin/sh
trap '' TERM
setsid sh -c 'trap "" TERM; echo $$ > "$0/child.pid"; while :; do sleep 1; done' "$PIDDIR" &
echo $$ > "$PIDDIR/leader.pid"
while :; do sleep 1; done
`;
