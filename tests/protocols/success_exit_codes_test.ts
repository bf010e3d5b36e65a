/**
 * Plain tools declare which exit statuses are success (`success_exit_codes`, default
 * `[0]`), validated at load; statuses 126/127 say what they usually mean (issue 17).
 *
 * @module
 */

import assert from "node:assert/strict";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { BASE_FILES, BASE_TOML, expectProblem, withWorkspace } from "../helpers/workspace.ts";

function plainTool(name: string, script: string, extra = ""): string {
  return `
[artifacts.app.views.agent_tools.${name}]
description = "Search."
protocol = "plain"
command = "${script}"
args = ["{pattern}"]
input_schema = { type = "object", properties = { pattern = { type = "string", maxLength = 64 } }, required = ["pattern"], additionalProperties = false }
${extra}`;
}

const GREP = `#!/bin/sh
grep -rn -- "$1" notes.txt
`;
const EXIT = `#!/bin/sh
exit "$1"
`;
const FILES = {
  ...BASE_FILES,
  "app/notes.txt": "alpha\nbeta\n",
  "app/g.sh": { text: GREP, mode: 0o755 },
  "app/x.sh": { text: EXIT, mode: 0o755 },
};

function text(r: ToolResult): string {
  return (r.content[0] as { text: string }).text;
}

async function call(toml: string, tool: string, pattern: string): Promise<ToolResult> {
  return await withWorkspace(toml, FILES, async (root) => {
    const reg = await Registry.open(await loadWorkspace(root), "app/review", {
      env: { PATH: "/usr/bin:/bin" },
      stateDir: `${root}/.state`,
    });
    try {
      return await reg.call(tool, { pattern });
    } finally {
      await reg.close();
    }
  });
}

Deno.test("success_exit_codes = [0, 1]: grep's 'no match' is a result, not an error", async () => {
  const toml = BASE_TOML + plainTool("find", "./g.sh", "success_exit_codes = [0, 1]");
  const hit = await call(toml, "find_app", "beta");
  assert.deepEqual([hit.isError, text(hit)], [false, "2:beta\n"]);
  const miss = await call(toml, "find_app", "gamma");
  assert.deepEqual([miss.isError, text(miss)], [false, ""]);
  const broken = await call(toml, "find_app", "[");
  assert.equal(broken.isError, true, "grep's exit 2 (a bad pattern) is still an error");
});

Deno.test("without success_exit_codes, only status 0 is success", async () => {
  const miss = await call(BASE_TOML + plainTool("find", "./g.sh"), "find_app", "gamma");
  assert.deepEqual([miss.isError, text(miss)], [true, "The tool exited with status 1."]);
});

Deno.test("statuses 126 and 127 say what they usually mean and point at --stderr", async () => {
  const toml = BASE_TOML + plainTool("x", "./x.sh");
  const r127 = await call(toml, "x_app", "127");
  assert.equal(r127.isError, true);
  assert.match(text(r127), /status 127, which usually means .*not found on PATH/);
  assert.match(text(r127), /tools call --stderr/);
  const r126 = await call(toml, "x_app", "126");
  assert.match(text(r126), /status 126, which usually means .*not executable/);
  assert.match(text(r126), /tools call --stderr/);
});

Deno.test("success_exit_codes is validated: nonempty, unique integers 0–255, plain only", async () => {
  const bad: [string, RegExp][] = [
    ["[]", /nonempty array/],
    ["[0, 256]", /integers from 0 to 255/],
    ["[-1]", /integers from 0 to 255/],
    ["[0.5]", /integers from 0 to 255/],
    ['["1"]', /integers from 0 to 255/],
    ["[0, 0]", /not repeat/],
    ["1", /nonempty array/],
  ];
  for (const [value, message] of bad) {
    const toml = BASE_TOML + plainTool("find", "./g.sh", `success_exit_codes = ${value}`);
    await expectProblem(toml, FILES, {
      keyPath: "artifacts.app.views.agent_tools.find.success_exit_codes",
      message,
    });
  }
  const json = BASE_TOML + plainTool("find", "./g.sh", "success_exit_codes = [0, 1]")
    .replace('protocol = "plain"', 'protocol = "json"').replace(
      'args = ["{pattern}"]',
      "args = []",
    );
  await expectProblem(json, FILES, {
    keyPath: "artifacts.app.views.agent_tools.find.success_exit_codes",
    message: /only plain tools/,
  });
});
