/**
 * Names `toolhost.lock` carries (an extension's locked tools, tools the lock has and the
 * workspace no longer does) are text toolhost forms like any other: when one holds a
 * protected value — a lock written before the value was protected, or edited by hand —
 * `tools check` (table and `--json`) and `toolhost lock --check` show `[protected]`,
 * never the value or a part of it.
 *
 * The value's variable is named for this file alone: the CLI reads it from this process's
 * environment, which test files running meanwhile on other threads share (another file
 * setting and deleting the same name would take it away mid-run).
 *
 * @module
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { lockSectionFor } from "../../lib/lock_build/check_lock.ts";
import { toolHashes } from "../../lib/lock/canonical.ts";
import { type LockFile, writeLockFile } from "../../lib/lock/lock_file.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { runCapture } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { extensionToml, fixtureServerArgs } from "../mcp/_helpers.ts";
import { assertTextHasNoPart, VALUE } from "./_helpers.ts";

const PLUGINS = `\n[plugins]\nenable = ["protected-values"]\n\n[plugins.protected-values]\n` +
  `provider = "env"\nenv = { deploy = "DEPLOY_TOKEN_LOCK_DRIFT" }\n`;
const BEFORE = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\n` +
  `audience = "agent"\n\n[artifacts.app.views.agent_tools.read]\nbuiltin = "read"\n${PLUGINS}`;
// The same eval admitting an extension the lock recorded with another command: it is held
// back, and the tools the lock records for it are listed as blocked.
const AFTER = BEFORE.replace('audience = "agent"\n', 'audience = "agent"\nextensions = ["fx"]\n') +
  `\n[extensions.fx]\ncommand = "sh"\nargs = ["-c", "exit 0"]\n`;

/** A lock of BEFORE, with names holding the value added where a lock carries names. */
async function leakyLock(root: string): Promise<LockFile> {
  const lock = await buildLock(await loadWorkspace(root), { stateDir: `${root}/.state` });
  const ev = lock.evals["app/review"];
  const hashes = toolHashes("", { type: "object" });
  ev.extensions.fx = {
    declaration: { command: "old-server", args: [] },
    programs: {},
    tools: { [`get${VALUE}`]: hashes },
  };
  ev.tools[`gone${VALUE}_app`] = { ...hashes, declaration: {}, executionPaths: {}, programs: {} };
  return lock;
}

Deno.test("tools check and lock --check show names from toolhost.lock redacted", async () => {
  await using tmp = await tempWorkspace(BEFORE, { "app/README.md": "# app\n" });
  Deno.env.set("DEPLOY_TOKEN_LOCK_DRIFT", VALUE);
  try {
    await writeLockFile({ root: tmp.root }, await leakyLock(tmp.root));
    Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, AFTER);
    const section = await lockSectionFor(
      await loadWorkspace(tmp.root),
      "app/review",
      `${tmp.root}/.state`,
    );
    assert.equal(section?.status, "drift");
    const text = JSON.stringify(section);
    assertTextHasNoPart([text], VALUE, "lock section");
    assert.ok(section?.blocked.includes("get[protected]_fx"), text);
    assert.ok(section?.drift.some((l) => l.includes("gone[protected]_app")), text);
    for (const argv of [["tools", "check"], ["tools", "check", "--json"], ["lock", "--check"]]) {
      const r = await runCapture([...argv, "--repo", tmp.root]);
      assert.equal(r.code, 1, `${argv.join(" ")}: ${r.out}${r.err}`);
      assertTextHasNoPart([r.out, r.err], VALUE, argv.join(" "));
      assert.match(r.out, /\[protected\]/, argv.join(" "));
    }
  } finally {
    Deno.env.delete("DEPLOY_TOKEN_LOCK_DRIFT");
  }
});

Deno.test("tools check --execute shows a listed tool's name holding a protected value redacted", async () => {
  // The server lists a tool named after the value; the lock (which never records it)
  // differs from the live listing by that tool.
  const toml = BEFORE.replace('audience = "agent"\n', 'audience = "agent"\nextensions = ["fx"]\n') +
    extensionToml("fx", {
      command: "deno", // on PATH under `deno task test` (scripts/deno_on_path.ts)
      args: fixtureServerArgs(),
      env: { FIXTURE_LISTED_VALUE: VALUE },
    });
  await using tmp = await tempWorkspace(toml, { "app/README.md": "# app\n" });
  Deno.env.set("DEPLOY_TOKEN_LOCK_DRIFT", VALUE);
  try {
    const ws = await loadWorkspace(tmp.root);
    await writeLockFile(ws, await buildLock(ws, { stateDir: `${tmp.root}/.state` }));
    const r = await runCapture([
      ...[
        "tools",
        "check",
        "app/review",
        "--execute",
        "--tool",
        "read_app",
        "--args",
        '{"path":"README.md"}',
      ],
      ...["--json", "--repo", tmp.root],
    ]);
    assertTextHasNoPart([r.out, r.err], VALUE, "tools check --execute");
    assert.ok(r.out.startsWith("{"), `${r.code}: ${r.out}${r.err}`);
    const report = JSON.parse(r.out);
    const lines: string[] = report.extensionLock?.drift ?? [];
    assert.ok(lines.some((l) => l.includes("[protected]")), r.out);
  } finally {
    Deno.env.delete("DEPLOY_TOKEN_LOCK_DRIFT");
  }
});

Deno.test("a malformed lock's error names its keys redacted (tools call, tools check)", async () => {
  await using tmp = await tempWorkspace(BEFORE, { "app/README.md": "# app\n" });
  Deno.env.set("DEPLOY_TOKEN_LOCK_DRIFT", VALUE);
  try {
    const lock = await buildLock(await loadWorkspace(tmp.root), { stateDir: `${tmp.root}/.state` });
    const text = JSON.stringify(lock).replace(
      '"tools":{',
      `"tools":{"x${VALUE}":{"description":"not a digest"},`,
    );
    Deno.writeTextFileSync(`${tmp.root}/toolhost.lock`, text);
    const section = await lockSectionFor(
      await loadWorkspace(tmp.root),
      "app/review",
      `${tmp.root}/.state`,
    );
    assert.equal(section?.status, "unverifiable");
    assert.match(section?.reason ?? "", /x\[protected\]/);
    assertTextHasNoPart([JSON.stringify(section)], VALUE, "tools check");
    const r = await runCapture([
      "tools",
      "call",
      "read_app",
      "--eval",
      "app/review",
      "--repo",
      tmp.root,
    ]);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.err, /LOCK_MISMATCH|toolhost\.lock/);
    assertTextHasNoPart([r.out, r.err], VALUE, "tools call");
  } finally {
    Deno.env.delete("DEPLOY_TOKEN_LOCK_DRIFT");
  }
});
