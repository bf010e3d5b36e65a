/**
 * The Deno entry (`deno run cli.ts`, the `deno compile` binary) started by a parent that
 * leaks descriptors without close-on-exec (a folder, a pipe): no tool it starts — host or
 * confined — holds them. A leaked folder descriptor inside bubblewrap reaches outside the
 * sandbox's mounts (`openat(fd, "..")`), a leaked pipe is whoever started toolhost's.
 */

import assert from "node:assert/strict";
import { REPO_ROOT } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "../sandbox/_corpus.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.fds]
description = "List my descriptors."
protocol = "plain"
command = "./fds.sh"
args = []

[artifacts.app.views.agent_tools.fds_confined]
description = "List my descriptors, confined."
protocol = "plain"
command = "./fds.sh"
args = []
sandbox = "read"
`;

// Prints the descriptors it holds, and whether the one at 200 reaches the host's root.
const FDS = `#!/bin/sh
ls /proc/self/fd | tr '\\n' ' '
echo
if [ -e /proc/self/fd/200/etc ]; then echo "ROOT REACHED"; fi
`;

/** Call `tool` through the Deno CLI from a bash that leaks fd 200 (`/`) and 201 (a pipe). */
async function callLeaky(root: string, tool: string): Promise<string> {
  const script = 'exec 200</; exec 201> >(cat >/dev/null); exec "$@"';
  const out = await new Deno.Command("/bin/bash", {
    args: [
      "-c",
      script,
      "bash",
      Deno.execPath(),
      "run",
      "-A",
      "--quiet",
      `${REPO_ROOT}/cli.ts`,
      "tools",
      "call",
      tool,
      "--eval",
      "app/review",
      "--repo",
      root,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, `${text}\n${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(text).content[0].text;
}

function held(listing: string): number[] {
  return listing.split("\n")[0].trim().split(/\s+/).map(Number);
}

for (const tool of ["fds", "fds_confined"]) {
  Deno.test(`Deno entry: descriptors leaked to toolhost never reach a tool (${tool})`, async (t) => {
    const skip = tool === "fds_confined" ? skipReason() : undefined;
    if (skip !== undefined) return printSkip(t.name, skip);
    await using ws = await tempWorkspace(TOML, { "app/fds.sh": { text: FDS, mode: 0o755 } });
    const listing = await callLeaky(ws.root, `${tool}_app`);
    assert.ok(!held(listing).includes(200), `the leaked folder reached the tool: ${listing}`);
    assert.ok(!held(listing).includes(201), `the leaked pipe reached the tool: ${listing}`);
    assert.doesNotMatch(listing, /ROOT REACHED/);
  });
}
