/**
 * `tools call` and `tools check --execute` run an extension's tool (`<tool>_<extension>`)
 * as `serve` and the library do: they start the eval's extension server, call it once and
 * stop it.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runCapture } from "../helpers/cli.ts";
import { withWorkspace } from "../helpers/workspace.ts";
import { fixtureServerArgs } from "../mcp/_helpers.ts";

// "deno" is first on PATH under `deno task test` (scripts/deno_on_path.ts).
const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"
extensions = ["fx"]

[extensions.fx]
command = "deno"
args = ${JSON.stringify(fixtureServerArgs())}
`;

Deno.test("tools call: an extension's tool is called through its server", async () => {
  await withWorkspace(TOML, { "app/README.md": "x" }, async (root) => {
    const base = ["--eval", "app/review", "--repo", root, "--state-dir", `${root}/.state`];
    const r = await runCapture(["tools", "call", "echo_fx", ...base, "--args", '{"text":"hi"}']);
    assert.equal(r.code, 0, r.err);
    const result = JSON.parse(r.out);
    assert.equal(result.isError, false);
    assert.deepEqual(result.content, [{ type: "text", text: "hi" }]);
    // Its schema still holds, and a name the server does not have is an error result.
    const bad = await runCapture(["tools", "call", "echo_fx", ...base, "--args", '{"text":1}']);
    assert.equal(bad.code, 1, bad.err);
    assert.equal(JSON.parse(bad.out).isError, true);
    const none = await runCapture(["tools", "call", "nope_fx", ...base]);
    assert.equal(none.code, 1, none.err);
    assert.match(JSON.parse(none.out).content[0].text, /No tool `nope_fx`/);
  });
});

Deno.test("tools check --execute: an extension's tool runs, an unknown name is still refused", async () => {
  await withWorkspace(TOML, { "app/README.md": "x" }, async (root) => {
    const base = ["tools", "check", "--repo", root, "--state-dir", `${root}/.state`];
    const r = await runCapture([
      ...[...base, "--execute", "--eval", "app/review", "--tool", "echo_fx"],
      ...["--args", '{"text":"hi"}'],
    ]);
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out);
    assert.equal(report.tool, "echo_fx");
    assert.deepEqual(report.result.content, [{ type: "text", text: "hi" }]);
    assert.equal(report.ready, true);
    const none = await runCapture([...base, "--execute", "--eval", "app/review", "--tool", "ech"]);
    assert.equal(none.code, 2, none.err);
    assert.match(none.err, /no tool `ech` in this selection/);
  });
});

Deno.test("tools call: a tool of an extension that cannot start says why", async () => {
  const toml = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\n` +
    `audience = "agent"\nextensions = ["gone"]\n\n[extensions.gone]\n` +
    `command = "no-such-mcp-server-q7"\n`;
  await withWorkspace(toml, { "app/README.md": "x" }, async (root) => {
    const r = await runCapture([
      ...["tools", "call", "read_gone", "--eval", "app/review", "--repo", root],
      ...["--state-dir", `${root}/.state`],
    ]);
    assert.equal(r.code, 1, r.err);
    assert.equal(
      JSON.parse(r.out).content[0].text,
      "The extension `gone` cannot start: the command was not found on PATH, so `read_gone` " +
        "is not available.",
    );
  });
});
