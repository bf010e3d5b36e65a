/**
 * `--stderr` on `tools call` and `tools check --execute` copies the tool's and its
 * harness's stderr to the command's stderr — never into a result (issue 17).
 *
 * @module
 */

import assert from "node:assert/strict";
import { runCapture } from "../helpers/cli.ts";
import { BASE_FILES, BASE_TOML, withWorkspace } from "../helpers/workspace.ts";

const TOML = `${BASE_TOML}
[artifacts.app.views.agent_tools.read]
builtin = "read"

[artifacts.app.views.agent_tools.fail]
description = "Fails."
protocol = "plain"
command = "tools/fail.sh"
args = []

[artifacts.app.views.agent_tools.quiet]
description = "Fails without a word on stderr."
protocol = "plain"
command = "tools/quiet.sh"
args = []

[artifacts.app.views.agent_tools.needs]
description = "Needs a word."
protocol = "plain"
command = "tools/fail.sh"
args = []
input_schema = { type = "object", properties = { word = { type = "string" } }, required = ["word"] }

[artifacts.app.views.agent_sessions.web]
start = { command = "tools/h.sh", args = ["start"] }
stop = { command = "tools/h.sh", args = ["stop"] }

[artifacts.app.views.agent_tools.hit]
session = "web"
description = "Hit."
protocol = "json"
command = "tools/h.sh"
args = ["hit"]
`;

const FILES = {
  ...BASE_FILES,
  "app/tools/fail.sh": { text: "#!/bin/sh\necho 'tool-stderr-marker' >&2\nexit 3\n", mode: 0o755 },
  "app/tools/quiet.sh": { text: "#!/bin/sh\necho 'stdout only'\nexit 3\n", mode: 0o755 },
  "app/tools/h.sh": {
    text: "#!/bin/sh\necho 'harness-stderr-marker' >&2\nexit 127\n",
    mode: 0o755,
  },
};

function call(root: string, tool: string, extra: string[] = []) {
  const argv = ["tools", "call", tool, "--eval", "app/review", "--repo", root, ...extra];
  return runCapture([...argv, "--state-dir", `${root}/.state`]);
}

Deno.test("tools call --stderr copies the tool's stderr to stderr, never to the result", async () => {
  await withWorkspace(TOML, FILES, async (root) => {
    const plain = await call(root, "fail_app");
    assert.equal(plain.code, 1);
    assert.ok(!plain.err.includes("tool-stderr-marker"), "copied without --stderr");
    // Without --stderr, an error result points at it (on stderr, never in the result).
    assert.match(plain.err, /the result is an error; .* run again with --stderr/);
    assert.doesNotMatch(plain.out, /run again with --stderr/);
    assert.ok(!plain.out.includes("tool-stderr-marker"));
    const shown = await call(root, "fail_app", ["--stderr"]);
    assert.equal(shown.code, 1);
    assert.match(shown.err, /tool-stderr-marker/);
    assert.doesNotMatch(shown.err, /run again with --stderr/);
    assert.ok(!shown.out.includes("tool-stderr-marker"), "stderr leaked into the result");
    assert.deepEqual(JSON.parse(shown.out), JSON.parse(plain.out));
    // A built-in runs no program: no hint at a stderr it does not have.
    const builtin = await call(root, "read_app", ["--args", '{"path":"nope"}']);
    assert.equal(builtin.code, 1);
    assert.equal(JSON.parse(builtin.out).isError, true);
    assert.equal(builtin.err, "");
  });
});

Deno.test("tools call: no --stderr hint when nothing was printed to stderr", async () => {
  await withWorkspace(TOML, FILES, async (root) => {
    // Arguments the schema refuses: the tool never ran.
    const refused = await call(root, "needs_app");
    assert.equal(refused.code, 1);
    assert.match(JSON.parse(refused.out).content[0].text, /required property `word`/);
    assert.equal(refused.err, "");
    // A tool that failed without a word on stderr: --stderr would show nothing.
    const quiet = await call(root, "quiet_app");
    assert.equal(quiet.code, 1);
    assert.equal(JSON.parse(quiet.out).isError, true);
    assert.equal(quiet.err, "");
    // The hint says how much there is to see.
    const loud = await call(root, "fail_app");
    assert.match(loud.err, /printed 19 byte\(s\) to stderr, not shown: run again with --stderr/);
  });
});

Deno.test("tools call --stderr copies the harness's stderr; 127 says what it means", async () => {
  await withWorkspace(TOML, FILES, async (root) => {
    const r = await call(root, "hit_app", ["--stderr"]);
    assert.equal(r.code, 1);
    assert.match(r.err, /harness-stderr-marker/);
    assert.ok(!r.out.includes("harness-stderr-marker"));
    const text = JSON.parse(r.out).content[0].text;
    assert.match(text, /exit status 127: usually a command or `#!` interpreter not found/);
    assert.match(text, /--stderr/);
    const quiet = await call(root, "hit_app");
    assert.ok(!quiet.err.includes("harness-stderr-marker"));
  });
});

Deno.test("tools check --execute --stderr copies stderr; --stderr alone is a usage error", async () => {
  await withWorkspace(TOML, FILES, async (root) => {
    const base = ["tools", "check", "--repo", root, "--state-dir", `${root}/.state`];
    const r = await runCapture([
      ...base,
      "--execute",
      "--eval",
      "app/review",
      "--tool",
      "fail_app",
      "--stderr",
    ]);
    assert.equal(r.code, 1);
    assert.match(r.err, /tool-stderr-marker/);
    assert.ok(!r.out.includes("tool-stderr-marker"));
    const bad = await runCapture([...base, "--stderr"]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--stderr requires --execute/);
  });
});
