/**
 * The lock pins what runs, not only the interpreter: `command = "sh", args =
 * ["tools/run.sh"]` runs `tools/run.sh`, and so does a session started as
 * `sh tools/harness.sh start` and a hook `sh hooks/check.sh`. Changing that script after
 * `toolhost lock` — before the registry opens or while it is open — is drift: the tool is
 * refused with LOCK_MISMATCH and the changed script never runs.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.run]
description = "Run the script."
protocol = "plain"
command = "sh"
args = ["tools/run.sh", "{word}"]
input_schema = { type = "object", properties = { word = { type = "string" } }, required = ["word"] }

[artifacts.app.views.agent_tools.other]
description = "Unrelated."
protocol = "plain"
command = "echo"
args = ["other"]
`;

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

async function setup() {
  const tmp = await tempWorkspace(TOML, {
    "app/tools/run.sh": 'echo "ran $1"\n',
  });
  const env = { PATH: "/usr/bin:/bin" };
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const open = () => Registry.open(ws, "app/review", { stateDir, env });
  return { tmp, open };
}

Deno.test("a script named by an argument is pinned: unchanged, it runs", async () => {
  const { tmp, open } = await setup();
  await using _ = tmp;
  const reg = await open();
  try {
    const pins = reg.lock!.locked!.tools.run_app.programs;
    assert.equal(pins["operand 0"]?.path, "app/tools/run.sh");
    assert.equal(text(await reg.call("run_app", { word: "x" })), "ran x\n");
  } finally {
    await reg.close();
  }
});

Deno.test("a script named by an argument, changed before open: refused, never run", async () => {
  const { tmp, open } = await setup();
  await using _ = tmp;
  await Deno.writeTextFile(`${tmp.root}/app/tools/run.sh`, "echo pwned\n");
  const reg = await open();
  try {
    const r = await reg.call("run_app", { word: "x" });
    assert.match(text(r), /^LOCK_MISMATCH: the tool `run_app`/);
    assert.doesNotMatch(text(r), /pwned/);
    assert.deepEqual(reg.lock!.blocked(), ["run_app"]);
    assert.equal(text(await reg.call("other_app", {})), "other\n");
  } finally {
    await reg.close();
  }
});

Deno.test("a script named by an argument, changed while open: the next call is refused", async () => {
  const { tmp, open } = await setup();
  await using _ = tmp;
  const reg = await open();
  try {
    assert.equal(text(await reg.call("run_app", { word: "x" })), "ran x\n");
    await Deno.writeTextFile(`${tmp.root}/app/tools/run.sh`, "echo pwned # longer\n");
    const r = await reg.call("run_app", { word: "x" });
    assert.match(text(r), /LOCK_MISMATCH: program `operand 0` `app\/tools\/run.sh`/);
    assert.doesNotMatch(text(r), /pwned/);
  } finally {
    await reg.close();
  }
});

const SESSION_TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_sessions.h]
start = { command = "sh", args = ["harness/start.sh"] }
stop = { command = "sh", args = ["harness/stop.sh"] }

[artifacts.app.views.agent_tools.act]
session = "h"
description = "Act."
protocol = "plain"
command = "echo"
args = ["acted"]
`;

Deno.test("with a lock, a stop script changed after the session started is not run", async () => {
  await using tmp = await tempWorkspace(SESSION_TOML, {
    "app/harness/start.sh": "cat >/dev/null\necho ready\nexec sleep 600\n",
    "app/harness/stop.sh": "cat >/dev/null\n",
  });
  const env = { PATH: "/usr/bin:/bin" };
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const reg = await Registry.open(ws, "app/review", { stateDir, env });
  try {
    assert.equal(text(await reg.call("act_app", {})), "acted\n"); // the session runs
    await Deno.writeTextFile(
      `${tmp.root}/app/harness/stop.sh`,
      `cat >/dev/null\ntouch "${tmp.root}/stop-ran"\n`,
    );
    await reg.close();
    assert.throws(() => Deno.statSync(`${tmp.root}/stop-ran`), Deno.errors.NotFound);
    assert.deepEqual(reg.sessions.sessions().map((s) => s.phase), ["closed"]);
  } finally {
    await reg.close();
  }
});
