/**
 * `tools check` reads well: by default a table of tools, sessions and extensions, ready or
 * not ready, with the reason, the TOML key path and line, and the fix; `--json` prints the
 * JSON report; exit codes are unchanged; no color off a terminal (issue 17).
 *
 * @module
 */

import assert from "node:assert/strict";
import { configureSandbox } from "../../lib/sandbox/detect.ts";
import { runCapture } from "../helpers/cli.ts";
import { BASE_FILES, BASE_TOML, withWorkspace } from "../helpers/workspace.ts";

const TOML = `${BASE_TOML}
[artifacts.app.views.agent_tools.read]
builtin = "read"

[artifacts.app.views.agent_tools.stats]
description = "Stats."
protocol = "json"
command = "tools/stats.sh"
args = []

[artifacts.app.views.agent_tools.lookup]
description = "Lookup."
protocol = "plain"
command = "no-such-program-q4"
args = []

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
  "app/tools/stats.sh": { text: "#!/bin/sh\necho '{}'\n", mode: 0o755 },
  "app/tools/h.sh": { text: "#!/usr/bin/env no-such-interp-q4\n", mode: 0o755 },
};

Deno.test("tools check: a table with reasons, key paths, lines and fixes; exit 1 when not ready", async () => {
  await withWorkspace(TOML, FILES, async (root) => {
    const r = await runCapture(["tools", "check", "app/review", "--repo", root]);
    assert.equal(r.code, 1);
    const out = r.out;
    assert.ok(!out.includes("\x1b"), "no color off a terminal");
    assert.match(out, /^eval app\/review \(agent\): not ready$/m);
    assert.match(out, /^ {2}TOOL +STATUS$/m);
    assert.match(out, /^ {2}read_app +ready +builtin:read$/m);
    assert.match(out, /^ {2}stats_app +ready +json, host \(unconfined\)$/m);
    assert.match(out, /^ {2}lookup_app +not ready$/m);
    assert.match(out, /executable: the command was not found on PATH\n/);
    assert.match(
      out,
      /at artifacts\.app\.views\.agent_tools\.lookup\.command \(toolhost\.toml:19\)/,
    );
    assert.match(out, /fix: install the program or add its folder to PATH/);
    assert.match(out, /^ {2}SESSION +STATUS$/m);
    assert.match(out, /^ {2}web_app +not ready$/m);
    assert.match(out, /start\.executable: found, but its `#!` interpreter `no-such-interp-q4`/);
    assert.match(
      out,
      /at artifacts\.app\.views\.agent_sessions\.web\.start\.command \(toolhost\.toml:23\)/,
    );
    assert.match(out, /fix: install that interpreter, or change the script's `#!` line/);
    assert.match(out, /\nThe checked scope is not ready\. `--json` prints the full report\.\n$/);
    assert.ok(!out.trimStart().startsWith("{"), "not JSON");
  });
});

Deno.test("tools check --json prints the JSON report with the same exit code", async () => {
  await withWorkspace(TOML, FILES, async (root) => {
    const r = await runCapture(["tools", "check", "app/review", "--json", "--repo", root]);
    assert.equal(r.code, 1);
    const body = JSON.parse(r.out);
    assert.equal(body.eval, "app/review");
    assert.equal(body.ready, false);
    assert.deepEqual(Object.keys(body).slice(0, 5), [
      "eval",
      "audience",
      "scope",
      "tools",
      "sessions",
    ]);
  });
});

Deno.test("tools check: an all-ready workspace says so and exits 0", async () => {
  const toml = `${BASE_TOML}\n[artifacts.app.views.agent_tools.read]\nbuiltin = "read"\n`;
  await withWorkspace(toml, BASE_FILES, async (root) => {
    const r = await runCapture(["tools", "check", "--repo", root]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /^eval app\/review \(agent\): ready$/m);
    assert.match(r.out, /\nThe checked scope is ready\.\n$/);
    assert.doesNotMatch(r.out, /All 1 /);
  });
});

Deno.test("tools check: extensions get their own rows", async () => {
  const toml = `[extensions.fx]\ncommand = "no-such-server-q4"\n\n${
    BASE_TOML.replace('audience = "agent"', 'audience = "agent"\nextensions = ["fx"]')
  }\n[artifacts.app.views.agent_tools.read]\nbuiltin = "read"\n`;
  await withWorkspace(toml, BASE_FILES, async (root) => {
    const r = await runCapture(["tools", "check", "--repo", root]);
    assert.match(r.out, /^ {2}EXTENSION +STATUS$/m, r.out + r.err);
    assert.match(r.out, /^ {2}fx +not ready$/m);
    assert.match(r.out, /command: the command was not found on PATH/);
    assert.match(r.out, /at extensions\.fx\.command \(toolhost\.toml:2\)/);
    // The row that is not ready makes the eval, the summary, the exit code and --json say so.
    assert.match(r.out, /^eval app\/review \(agent\): not ready$/m);
    assert.match(r.out, /The checked scope is not ready\./);
    assert.equal(r.code, 1);
    const j = await runCapture(["tools", "check", "app/review", "--json", "--repo", root]);
    assert.equal(j.code, 1);
    const report = JSON.parse(j.out);
    assert.equal(report.ready, false);
    assert.equal(report.extensions[0].ready, false);
    assert.equal(report.extensions[0].problem, "the command was not found on PATH");
  });
});

/** The base workspace plus a json tool `stats` (tools/stats.sh) with one more manifest line. */
function statsTool(line: string) {
  const toml = `${BASE_TOML}
[artifacts.app.views.agent_tools.stats]
description = "Stats."
protocol = "json"
command = "./tools/stats.sh"
args = []
${line}
`;
  const files = { ...BASE_FILES, "app/tools/stats.sh": { text: "#!/bin/sh\n", mode: 0o755 } };
  return { toml, files };
}

Deno.test("tools check: an execution path written from the Artifact's folder names the root-relative one", async () => {
  const { toml, files } = statsTool('execution_paths = ["tools/stats.sh", "tools/gone.sh"]');
  await withWorkspace(toml, files, async (root) => {
    const r = await runCapture(["tools", "check", "--repo", root]);
    assert.equal(r.code, 1, r.out);
    assert.match(
      r.out,
      /execution_path: `tools\/stats\.sh` is missing: execution paths are relative to the workspace root, not the Artifact's folder \(did you mean `app\/tools\/stats\.sh`\?\)\n/,
    );
    assert.match(r.out, /fix: write the path from the workspace root, as suggested/);
    // A path missing everywhere keeps the plain message and fix.
    assert.match(r.out, /execution_path: `tools\/gone\.sh` is missing\n/);
    assert.match(r.out, /fix: create it, or correct the declared path/);
  });
});

Deno.test("tools check: confinement unavailable here gives a fix, including running unconfined", async () => {
  const { toml, files } = statsTool('sandbox = "read"');
  configureSandbox({ platform: "darwin" });
  try {
    await withWorkspace(toml, files, async (root) => {
      const r = await runCapture(["tools", "check", "--repo", root]);
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, /confinement: unavailable \(confinement needs Linux namespaces/);
      assert.match(
        r.out,
        /fix: make confinement work here as the reason says, or remove `sandbox` from this declaration \(and any `\[sandbox\]` default\) to run it unconfined/,
      );
    });
  } finally {
    configureSandbox({});
  }
});

Deno.test("tools check: the closing line counts scopes in plain English", async () => {
  const toml = `${BASE_TOML}
[artifacts.app.evals.other]
audience = "agent"

[artifacts.app.views.agent_tools.lookup]
description = "Lookup."
protocol = "plain"
command = "no-such-program-q4"
args = []
`;
  await withWorkspace(toml, BASE_FILES, async (root) => {
    const r = await runCapture(["tools", "check", "--repo", root]);
    assert.equal(r.code, 1, r.out);
    assert.match(
      r.out,
      /\n2 of 2 checked scopes are not ready\. `--json` prints the full report\.\n$/,
    );
  });
  const ok = `${BASE_TOML}\n[artifacts.app.evals.other]\naudience = "agent"\n`;
  await withWorkspace(ok, BASE_FILES, async (root) => {
    const r = await runCapture(["tools", "check", "--repo", root]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /\nAll 2 checked scopes are ready\.\n$/);
  });
});
