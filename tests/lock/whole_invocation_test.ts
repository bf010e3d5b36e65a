/**
 * Issue 16: the lock covers a tool's whole invocation. Every change below ran unreviewed
 * before (a call with changed args, `command = "id"`, a new timeout, limits, overflow, a
 * built-in's fixed target, a session's start command, a hook command) while
 * `lock --check` said "up to date". Each must now block exactly the affected tools with
 * `LOCK_MISMATCH` naming the tool and the field, never the content.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { canonicalDeclaration, evalDeclaration } from "../../lib/lock/declaration.ts";
import { lockPath, writeLockFile } from "../../lib/lock/lock_file.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { runCapture } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.read]
builtin = "read"

[artifacts.app.views.agent_tools.fixed]
builtin = "read"
args = ["a.txt"]

[artifacts.app.views.agent_tools.echo]
description = "Echo."
protocol = "plain"
command = "echo"
args = ["hello"]
timeout_ms = 5000

[artifacts.app.views.agent_sessions.h]
start = { command = "tools/harness.sh", args = ["start"] }
stop = { command = "tools/harness.sh", args = ["stop"] }

[artifacts.app.views.agent_tools.act]
session = "h"
description = "Act."
protocol = "json"
command = "tools/harness.sh"
args = ["act"]

[[hooks.after_call]]
command = "app/tools/hook.sh"
args = ["a"]
tools = ["nothing_*"]
`;

const HARNESS = `#!/bin/sh
cat >/dev/null
case "$1" in start) echo ready; exec sleep 60 ;; *) printf '{"content":[{"type":"text","text":"acted"}]}\\n' ;; esac
`;

const FILES = {
  "app/a.txt": "secret-a\n",
  "app/b.txt": "other-b\n",
  "app/tools/harness.sh": { text: HARNESS, mode: 0o755 },
  "app/tools/hook.sh": { text: '#!/bin/sh\necho \'{"decision":"allow"}\'\n', mode: 0o755 },
};

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

/** [what changes, from, to, blocked tools, a drift line that must appear] */
const CASES: [string, string, string, string[], RegExp][] = [
  [
    "args",
    'args = ["hello"]',
    'args = ["bye"]',
    ["echo_app"],
    /tool `echo_app`: declaration `args` changed/,
  ],
  [
    "command",
    'command = "echo"',
    'command = "id"',
    ["echo_app"],
    /tool `echo_app`: declaration `command` changed/,
  ],
  ["protocol", 'protocol = "plain"\ncommand = "echo"', 'protocol = "json"\ncommand = "echo"', [
    "echo_app",
  ], /declaration `protocol` changed/],
  [
    "timeout",
    "timeout_ms = 5000",
    "timeout_ms = 6000",
    ["echo_app"],
    /tool `echo_app`: declaration `timeout_ms` changed/,
  ],
  [
    "limits",
    "timeout_ms = 5000",
    "timeout_ms = 5000\nmax_processes = 5",
    ["echo_app"],
    /declaration `limits` added/,
  ],
  [
    "overflow",
    "timeout_ms = 5000",
    'timeout_ms = 5000\noverflow = "artifact"',
    ["echo_app"],
    /declaration `overflow` added/,
  ],
  [
    "fixed target",
    'args = ["a.txt"]',
    'args = ["b.txt"]',
    ["fixed_app"],
    /tool `fixed_app`: declaration `args` changed/,
  ],
  [
    "session start",
    'args = ["start"]',
    'args = ["start", "--debug"]',
    ["act_app"],
    /session `h_app`: declaration `start` changed/,
  ],
  ["hook command", 'args = ["a"]\ntools', 'args = ["b"]\ntools', [
    "act_app",
    "echo_app",
    "fixed_app",
    "get_artifact_field",
    "read_app",
    "search_artifact_content",
  ], /eval: declaration `hooks` changed/],
  ["artifact roots", 'path = "app"\n', 'path = "app"\nartifact_roots = ["app"]\n', [
    "act_app",
    "echo_app",
    "fixed_app",
    "read_app",
  ], /declaration `artifact` changed/],
];

for (const [what, from, to, blocked, line] of CASES) {
  Deno.test(`a changed ${what} after locking blocks only the affected tools`, async () => {
    await using tmp = await tempWorkspace(TOML, FILES);
    const stateDir = `${tmp.root}/.state`;
    const ws = await loadWorkspace(tmp.root);
    await writeLockFile(ws, await buildLock(ws, { stateDir }));
    assert.ok(TOML.includes(from), what);
    await Deno.writeTextFile(`${tmp.root}/toolhost.toml`, TOML.replace(from, to));
    const changed = await loadWorkspace(tmp.root);
    const reg = await Registry.open(changed, "app/review", { stateDir });
    try {
      assert.deepEqual(reg.lock!.blocked().sort(), blocked);
      const r = await reg.call(blocked[0], blocked[0] === "read_app" ? { path: "a.txt" } : {});
      assert.equal(r.isError, true);
      assert.match(text(r), /^LOCK_MISMATCH: the tool `/);
      assert.match(text(r), line);
      // Names and fields only: never the old or new value.
      assert.doesNotMatch(text(r), /hello|bye|b\.txt|--debug|secret|6000/);
      if (!blocked.includes("read_app")) {
        assert.equal((await reg.call("read_app", { path: "a.txt" })).isError, false);
      }
    } finally {
      await reg.close();
    }
  });
}

Deno.test("lock --check exits 1 for a changed args, tools call refuses it (CLI)", async () => {
  await using tmp = await tempWorkspace(TOML, FILES);
  const repo = ["--repo", tmp.root];
  assert.equal((await runCapture(["lock", ...repo])).code, 0);
  assert.equal((await runCapture(["lock", "--check", ...repo])).code, 0);
  await Deno.writeTextFile(
    `${tmp.root}/toolhost.toml`,
    TOML.replace('args = ["a.txt"]', 'args = ["b.txt"]'),
  );
  const check = await runCapture(["lock", "--check", ...repo]);
  assert.equal(check.code, 1);
  assert.match(check.out, /tool `fixed_app`: declaration `args` changed/);
  assert.doesNotMatch(check.out, /b\.txt/);
  const call = await runCapture(["tools", "call", "fixed_app", "--eval", "app/review", ...repo]);
  assert.equal(call.code, 1);
  assert.match(call.out, /LOCK_MISMATCH/);
  assert.doesNotMatch(call.out, /other-b/); // the new target was not read
  const report = JSON.parse(
    (await runCapture(["tools", "check", "--json", "app/review", ...repo])).out,
  );
  assert.equal(report.lock.status, "drift");
  assert.deepEqual(report.lock.blocked, ["fixed_app"]);
});

Deno.test("an old-format lock is refused with how to regenerate it", async () => {
  await using tmp = await tempWorkspace(TOML, FILES);
  const ws = await loadWorkspace(tmp.root);
  await Deno.writeTextFile(lockPath(ws), '{"evals":{},"lockfileVersion":1}\n');
  await assert.rejects(
    Registry.open(ws, "app/review", { stateDir: `${tmp.root}/.state` }),
    /format version 1, .*run `toolhost lock` to regenerate it/,
  );
  const check = await runCapture(["lock", "--check", "--repo", tmp.root]);
  assert.equal(check.code, 1);
  assert.equal((await runCapture(["lock", "--repo", tmp.root])).code, 0);
  assert.equal((await runCapture(["lock", "--check", "--repo", tmp.root])).code, 0);
});

Deno.test("declarations are pinned generically: a key added later is covered unnamed", () => {
  // A tool key no one told the lock about (e.g. a sandbox setting) is part of the form.
  const form = canonicalDeclaration({
    type: "command",
    command: "x",
    sandboxWrite: ["out"],
    successExitCodes: [0, 1],
    keyPath: "artifacts.app.views.agent_tools.x",
    env: { TOKEN_VAR: "literal" },
  });
  assert.deepEqual(Object.keys(form).sort(), [
    "command",
    "env",
    "sandbox_write",
    "success_exit_codes",
    "type",
  ]);
  // Values under env/headers are pinned by hash, never copied into the lock.
  assert.match(String((form.env as Record<string, unknown>).TOKEN_VAR), /^sha256:[0-9a-f]{64}$/);
  // A new top-level table (a workspace-wide default) is part of every eval's declaration.
  const ws = {
    extra: {
      manifest: {
        sandbox: { network: false },
        artifacts: { app: { evals: { review: { audience: "agent", extensions: ["x"] } } } },
      },
    },
  };
  const ev = evalDeclaration(ws, { artifactId: "app", name: "review" });
  assert.equal(JSON.stringify(ev.workspace), '{"sandbox":{"network":false}}');
  assert.equal(JSON.stringify(ev.eval), '{"audience":"agent"}'); // admitted extensions are pinned one by one
});

Deno.test("with a lock, a hook program swapped while the registry lives refuses every call", async () => {
  await using tmp = await tempWorkspace(TOML, FILES);
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir }));
  const reg = await Registry.open(ws, "app/review", { stateDir });
  try {
    assert.equal((await reg.call("read_app", { path: "a.txt" })).isError, false);
    await Deno.writeTextFile(`${tmp.root}/app/tools/hook.sh`, "#!/bin/sh\necho pwned\n");
    const r = await reg.call("read_app", { path: "a.txt" });
    assert.equal(r.isError, true);
    assert.match(
      text(r),
      /LOCK_MISMATCH: program `command` `app\/tools\/hook\.sh` of a hook command/,
    );
    assert.doesNotMatch(text(r), /pwned|secret-a/);
  } finally {
    await reg.close();
  }
});
