/**
 * `tools check` resolves a script's `#!` interpreter: `/usr/bin/env X` and `env -S X ...`
 * need X on PATH, an absolute interpreter must exist and be executable; a missing one
 * makes the tool (or session) not ready and is named (issue 17).
 *
 * @module
 */

import assert from "node:assert/strict";
import { parseShebang } from "../../lib/check/interpreter.ts";
import { runCapture } from "../helpers/cli.ts";
import { BASE_FILES, BASE_TOML, type FileTree, withWorkspace } from "../helpers/workspace.ts";

Deno.test("parseShebang: env forms, absolute interpreters, no #! line", () => {
  const cases: [string, ReturnType<typeof parseShebang>][] = [
    ["#!/bin/sh\necho", { program: "/bin/sh", onPath: false }],
    ["#! /usr/bin/python3 -u\n", { program: "/usr/bin/python3", onPath: false }],
    ["#!/usr/bin/env node\n", { program: "node", onPath: true }],
    ["#!/usr/bin/env -S deno run -A\n", { program: "deno", onPath: true }],
    ["#!/usr/bin/env -Sdeno run\n", { program: "deno", onPath: true }],
    ["#!/usr/bin/env -i -u HOME A=1 bash\n", { program: "bash", onPath: true }],
    ["#!/usr/bin/env ./local-interp\n", { program: "./local-interp", onPath: false }],
    ["#!/usr/bin/env\n", undefined],
    ["#!\n", undefined],
    ["\u007fELF\u0002\u0001", undefined],
    ["echo no shebang\n", undefined],
  ];
  for (const [head, want] of cases) assert.deepEqual(parseShebang(head), want, head);
});

function tool(name: string): string {
  return `
[artifacts.app.views.agent_tools.${name}]
description = "T."
protocol = "plain"
command = "./${name}.sh"
args = []
`;
}

const SCRIPTS = {
  env_missing: "#!/usr/bin/env -S no-such-interp-x7 run -A\necho hi\n",
  abs_missing: "#!/no/such/dir/sh\necho hi\n",
  env_found: "#!/usr/bin/env sh\necho hi\n",
  abs_found: "#!/bin/sh\necho hi\n",
};

interface Check {
  check: string;
  ok: boolean;
  detail: string;
}

Deno.test("tools check: a missing #! interpreter is not ready and named; a present one is", async () => {
  const files: FileTree = { ...BASE_FILES };
  for (const [n, text] of Object.entries(SCRIPTS)) files[`app/${n}.sh`] = { text, mode: 0o755 };
  const toml = BASE_TOML + Object.keys(SCRIPTS).map(tool).join("");
  await withWorkspace(toml, files, async (root) => {
    const r = await runCapture(["tools", "check", "app/review", "--json", "--repo", root]);
    assert.equal(r.code, 1, r.err);
    const report = JSON.parse(r.out);
    const exe = (name: string): Check =>
      report.tools.find((t: { name: string }) => t.name === `${name}_app`).checks
        .find((c: Check) => c.check === "executable");
    assert.equal(exe("env_missing").ok, false);
    assert.match(
      exe("env_missing").detail,
      /interpreter `no-such-interp-x7` was not found on PATH/,
    );
    assert.equal(exe("abs_missing").ok, false);
    assert.match(exe("abs_missing").detail, /interpreter `\/no\/such\/dir\/sh` is missing/);
    assert.deepEqual(exe("env_found"), { check: "executable", ok: true, detail: "found" });
    assert.deepEqual(exe("abs_found"), { check: "executable", ok: true, detail: "found" });
  });
});

Deno.test("tools check: a session whose harness interpreter is missing is not ready", async () => {
  const toml = `${BASE_TOML}
[artifacts.app.views.agent_sessions.web]
start = { command = "./h.sh", args = ["start"] }
stop = { command = "./h.sh", args = ["stop"] }

[artifacts.app.views.agent_tools.hit]
session = "web"
description = "Hit."
protocol = "json"
command = "./h.sh"
args = ["hit"]
`;
  const files = { ...BASE_FILES, "app/h.sh": { text: SCRIPTS.env_missing, mode: 0o755 } };
  await withWorkspace(toml, files, async (root) => {
    const r = await runCapture(["tools", "check", "app/review", "--json", "--repo", root]);
    assert.equal(r.code, 1);
    const [session] = JSON.parse(r.out).sessions;
    const start = session.checks.find((c: Check) => c.check === "start.executable");
    assert.equal(session.ready, false);
    assert.match(start.detail, /no-such-interp-x7/);
  });
});
