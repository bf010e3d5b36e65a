/**
 * A tool run unconfined under the CLI cannot dodge its limits, nor outlive its call, by
 * escaping the watched tree with all three moves at once: a double fork (the middle
 * process exits at once, so the grandchild is re-parented before the walk sees it),
 * `setsid` (out of the leader's session and group) and `env -i` (no group tag). The CLI
 * makes toolhost a child subreaper (cli.ts, lib/process/adopted.ts): the grandchild is
 * re-parented to toolhost, counted toward the call's `max_processes`, and killed when the
 * call ends. Run through `tools call` (the CLI is what sets the subreaper up); every check
 * waits for a condition (the call's result, the escapee being gone), never for a clock.
 */

import assert from "node:assert/strict";
import { currentEnforcement, enforcementLabel } from "../../lib/limits/enforcement.ts";
import { cliCommand, REPO_ROOT } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { goneWith, killAll } from "../helpers/live_processes.ts";

// `( … & )`: the subshell forks the escapee and exits at once (the double fork). The
// escapee leaves the session and clears its environment, then forks six sleepers
// (`fork`) or sleeps alone (`sleep`: the leader returns only once the escapee runs in its
// new session with its cleared environment, so the call's end never catches it still in
// the call's session). Every one's argv carries the script's path (the marker); the
// sleepers are Perl (perl-base is Essential on Debian) for that.
const ESCAPE = `#!/bin/sh
nap="/usr/bin/perl -e 'sleep 300' \\"\\$1\\""
if [ "$1" = fork ]; then
  ( /usr/bin/setsid /usr/bin/env -i /bin/sh -c \\
    "for i in 1 2 3 4 5 6; do $nap & done; wait" escapee "$0" & )
  exec /bin/sleep 300
fi
flag="$(dirname "$0")/escaped.$$"
( /usr/bin/setsid /usr/bin/env -i /bin/sh -c "echo > \\"\\$2\\"; $nap" escapee "$0" "$flag" & )
until [ -e "$flag" ]; do /bin/sleep 0.05; done
echo escaped
`;

const tool = (name: string, mode: string, limits: string, script = "escape.sh") =>
  `\n[artifacts.app.views.agent_tools.${name}]\ndescription = "${name}"\nprotocol = "plain"\n` +
  `command = "tools/${script}"\nargs = ["${mode}"]\n${limits}\n`;

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
  tool("forks", "fork", "max_processes = 4\ntimeout_ms = 20000") +
  tool("sleeps", "sleep", "max_processes = 8\ntimeout_ms = 20000") +
  tool("loose", "sleep", "timeout_ms = 20000") +
  tool("holder", "hold", "max_processes = 1\ntimeout_ms = 20000", "holder.sh");

const FILES = {
  "app/README.md": "# app\n",
  "app/tools/escape.sh": { text: ESCAPE, mode: 0o755 },
  // One process for the whole call (its argv carries the marker).
  "app/tools/holder.sh": {
    text: `#!/bin/sh\nexec /usr/bin/perl -e 'sleep 300' "$0"\n`,
    mode: 0o755,
  },
};

const enforcement = currentEnforcement();
const rlimit = enforcement.mode === "rlimit";
if (!rlimit) console.log(`SKIP subreaper tests: ${enforcementLabel(enforcement)}`);

async function callTool(name: string): Promise<{ code: number; text: string; marker: string }> {
  const tmp = await tempWorkspace(TOML, FILES);
  const marker = `${tmp.root}/app/tools/escape.sh`;
  try {
    const argv = ["tools", "call", `${name}_app`, "--repo", tmp.root, "--eval", "app/review"];
    const out = await cliCommand(argv).output();
    const result = JSON.parse(new TextDecoder().decode(out.stdout));
    const left = await goneWith(marker);
    assert.deepEqual(left, [], "an escaped process outlived its call");
    return { code: out.code, text: result.content[0].text, marker };
  } finally {
    killAll(marker);
    await tmp.cleanup();
  }
}

Deno.test({
  name: "an escaped grandchild (double fork, setsid, env -i) counts toward max_processes",
  ignore: !rlimit,
  async fn() {
    const r = await callTool("forks");
    assert.equal(r.code, 1);
    assert.equal(r.text, "The tool was stopped: resource limit: processes.");
  },
});

Deno.test({
  name: "an escaped grandchild under its limits does not outlive the call",
  ignore: !rlimit,
  async fn() {
    const r = await callTool("sleeps");
    assert.equal(r.code, 0);
    assert.equal(r.text.trim(), "escaped");
  },
});

/** Run tests/fixtures/process/subreaper_host.ts (a long-lived host) on a fresh workspace. */
async function host(...scenario: string[]): Promise<{ texts: string[]; left: number[] }> {
  const tmp = await tempWorkspace(TOML, FILES);
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        `${REPO_ROOT}/tests/fixtures/process/subreaper_host.ts`,
        tmp.root,
        ...scenario,
      ],
      cwd: REPO_ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, err);
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } finally {
    killAll(tmp.root);
    await tmp.cleanup();
  }
}

Deno.test({
  name: "a long-lived host kills an escaped grandchild when its call ends, not when it exits",
  ignore: !rlimit,
  async fn() {
    const r = await host("single", "sleeps");
    assert.deepEqual(r, { texts: ["escaped"], left: [] });
  },
});

Deno.test({
  name: "an escapee either of two running calls may own counts toward both, ends with the last",
  ignore: !rlimit,
  async fn() {
    // holder (max_processes = 1, one process) runs when sleeps' escapee appears: either
    // could own it, so it counts toward holder too (a breach), and whichever call ends
    // last kills it.
    const r = await host("shared");
    assert.deepEqual(r, {
      texts: ["escaped", "The tool was stopped: resource limit: processes."],
      left: [],
    });
  },
});

Deno.test({
  name: "an escapee of a tool without limits ends with its call too (a long-lived host)",
  ignore: !rlimit,
  async fn() {
    const r = await host("single", "loose");
    assert.deepEqual(r, { texts: ["escaped"], left: [] });
  },
});
