/**
 * Issue 16, extensions: an extension whose declaration differs from the lock is shown by
 * the static `tools check` (not `verified`), its locked tools are blocked there, and
 * `toolhost lock --check` never starts it — a check must not run an unreviewed command.
 */

import assert from "node:assert/strict";
import { runCapture } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { REPO } from "../mcp/_helpers.ts";

const SERVER = `#!/bin/sh
touch "$MARK"
exec "${Deno.execPath()}" run -A --config "${REPO}/deno.json" "${REPO}/tests/fixtures/mcp/heal_server.ts"
`;

function toml(root: string, args: string): string {
  return `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"
extensions = ["hx"]

[artifacts.app.views.agent_tools.read]
builtin = "read"

[extensions.hx]
command = "tools/server.sh"
args = ${args}
timeout_ms = 30000
env = { MARK = "${root}/started" }
`;
}

Deno.test("a changed extension: static tools check shows it, lock --check never starts it", async () => {
  await using tmp = await tempWorkspace("", {
    "app/README.md": "# app\n",
    "tools/server.sh": { text: SERVER, mode: 0o755 },
  });
  const repo = ["--repo", tmp.root];
  const mark = `${tmp.root}/started`;
  await Deno.writeTextFile(`${tmp.root}/toolhost.toml`, toml(tmp.root, "[]"));
  const wrote = await runCapture(["lock", ...repo]);
  assert.equal(wrote.code, 0, wrote.err);
  assert.ok(Deno.statSync(mark).isFile); // locking lists it once
  Deno.removeSync(mark);

  const clean = JSON.parse(
    (await runCapture(["tools", "check", "--json", "app/review", ...repo])).out,
  );
  assert.equal(clean.lock.status, "verified");

  // The reviewed command with other args (an unreviewed invocation).
  await Deno.writeTextFile(`${tmp.root}/toolhost.toml`, toml(tmp.root, '["--inject"]'));
  const report = await runCapture(["tools", "check", "--json", "app/review", ...repo]);
  assert.equal(report.code, 1);
  const body = JSON.parse(report.out);
  assert.equal(body.lock.status, "drift");
  assert.deepEqual(body.lock.drift, ["extension `hx`: declaration `args` changed"]);
  assert.ok(body.lock.blocked.includes("echo_hx"), body.lock.blocked.join());
  assert.doesNotMatch(report.out, /--inject/);

  const check = await runCapture(["lock", "--check", ...repo]);
  assert.equal(check.code, 1);
  assert.match(check.out, /extension `hx`: declaration `args` changed/);
  assert.doesNotMatch(check.out, /extension tool/); // its tools were not listed anew
  assert.throws(() => Deno.statSync(mark), Deno.errors.NotFound); // never started

  // The env values are pinned by hash only: the lock never holds them.
  const lock = await Deno.readTextFile(`${tmp.root}/toolhost.lock`);
  assert.doesNotMatch(lock, /started/);
});
