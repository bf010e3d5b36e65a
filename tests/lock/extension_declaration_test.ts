/**
 * Issue 16, extensions: an extension whose declaration differs from the lock is shown by
 * the static `tools check` (not `verified`), its locked tools are blocked there, and
 * `toolhost lock --check` never starts it — a check must not run an unreviewed command.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { evalToolSource } from "../../lib/mcp/tool_source.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { runCapture } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { REPO } from "../mcp/_helpers.ts";

const SERVER = `#!/bin/sh
touch "$MARK"
exec "${Deno.execPath()}" run -A --config "${REPO}/deno.json" "${REPO}/tests/fixtures/mcp/heal_server.ts"
`;

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

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

Deno.test("a locked extension whose program is swapped while serving is not restarted", async () => {
  await using tmp = await tempWorkspace("", {
    "app/README.md": "# app\n",
    "tools/server.sh": { text: SERVER, mode: 0o755 },
  });
  await Deno.writeTextFile(`${tmp.root}/toolhost.toml`, toml(tmp.root, "[]"));
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir }));
  const source = evalToolSource(await Registry.open(ws, "app/review", { stateDir }));
  try {
    const pid = Number(text(await source.call("pid_hx", {})));
    // A refusal instead of a pid must fail here: Deno.kill(NaN) signals pid 0, our own group.
    assert.ok(Number.isInteger(pid) && pid > 0, `not a pid: ${pid}`);
    // Swap the server for another program, then let self-healing try to restart it.
    await Deno.writeTextFile(`${tmp.root}/tools/server.sh`, SERVER + "# swapped\n");
    Deno.removeSync(`${tmp.root}/started`);
    Deno.kill(pid, "SIGKILL");
    let r = await source.call("pid_hx", {});
    for (let i = 0; i < 600 && !/LOCK_MISMATCH/.test(text(r)); i++) {
      await new Promise((ok) => setTimeout(ok, 100)); // restart backoff, then the check
      r = await source.call("pid_hx", {});
    }
    assert.equal(r.isError, true);
    assert.match(text(r), /LOCK_MISMATCH: the extension `hx` was not started/);
    assert.match(text(r), /program `command` `tools\/server\.sh` changed/);
    assert.throws(() => Deno.statSync(`${tmp.root}/started`), Deno.errors.NotFound);
  } finally {
    await source.close();
  }
});
