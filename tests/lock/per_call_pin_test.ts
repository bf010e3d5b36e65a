/**
 * Issue 16: pins are checked before every call, not only when a registry opens, so a
 * long-lived registry never runs what changed on disk after it pinned it — lock or no
 * lock — and `provenance()` is what every call ran. With a lock, a PATH program swapped
 * after open is caught the same way.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOOL = `#!/bin/sh
cat >/dev/null
printf '{"content":[{"type":"text","text":"stats"}]}\\n'
`;
const HARNESS = `#!/bin/sh
cat >/dev/null
case "$1" in start) echo ready; exec sleep 60 ;; *) printf '{"content":[{"type":"text","text":"acted"}]}\\n' ;; esac
`;

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.stats]
description = "Stats."
protocol = "json"
command = "tools/stats.sh"
args = []
execution_paths = ["app/tools"]

[artifacts.app.views.agent_tools.greet]
description = "Greet."
protocol = "plain"
command = "greettool"
args = []

[artifacts.app.views.agent_sessions.h]
start = { command = "harness/h.sh", args = ["start"], execution_paths = ["app/harness"] }
stop = { command = "harness/h.sh", args = ["stop"], execution_paths = ["app/harness"] }

[artifacts.app.views.agent_tools.act]
session = "h"
description = "Act."
protocol = "json"
command = "harness/h.sh"
args = ["act"]
`;

const FILES = {
  "app/tools/stats.sh": { text: TOOL, mode: 0o755 },
  "app/tools/lib/helper.txt": "v1\n",
  "app/harness/h.sh": { text: HARNESS, mode: 0o755 },
  "bin/greettool": { text: "#!/bin/sh\necho greeted\n", mode: 0o755 },
};

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

async function open(lock: boolean) {
  const tmp = await tempWorkspace(TOML, FILES);
  const stateDir = `${tmp.root}/.state`;
  const env = { PATH: `${tmp.root}/bin:/usr/bin:/bin` };
  const ws = await loadWorkspace(tmp.root);
  if (lock) await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const reg = await Registry.open(ws, "app/review", { stateDir, env });
  return { tmp, reg };
}

Deno.test("no lock: a pinned file edited while the registry lives fails the call", async () => {
  const { tmp, reg } = await open(false);
  try {
    const pinned = reg.provenance();
    assert.equal(text(await reg.call("stats_app", {})), "stats");
    await Deno.writeTextFile(`${tmp.root}/app/tools/stats.sh`, TOOL.replace("stats", "evil"));
    const r = await reg.call("stats_app", {});
    assert.equal(r.isError, true);
    assert.match(text(r), /execution path `app\/tools` of the tool `stats_app` changed/);
    assert.doesNotMatch(text(r), /evil/);
    assert.deepEqual(reg.provenance(), pinned); // provenance still says what may run
    // The same bytes again (a new inode, new times): it matches its pin and runs.
    await Deno.remove(`${tmp.root}/app/tools/stats.sh`);
    await Deno.writeTextFile(`${tmp.root}/app/tools/stats.sh`, TOOL, { mode: 0o755 });
    await Deno.chmod(`${tmp.root}/app/tools/stats.sh`, 0o755);
    assert.equal(text(await reg.call("stats_app", {})), "stats");
  } finally {
    await reg.close();
    await tmp.cleanup();
  }
});

Deno.test("no lock: a file added deep inside a pinned folder fails the call", async () => {
  const { tmp, reg } = await open(false);
  try {
    await Deno.writeTextFile(`${tmp.root}/app/tools/lib/extra.js`, "evil()\n");
    assert.match(text(await reg.call("stats_app", {})), /`app\/tools` of the tool `stats_app`/);
    await Deno.remove(`${tmp.root}/app/tools/lib/extra.js`);
    assert.equal(text(await reg.call("stats_app", {})), "stats");
  } finally {
    await reg.close();
    await tmp.cleanup();
  }
});

Deno.test("a session's pinned folder changed before its first call: the harness never starts", async () => {
  const { tmp, reg } = await open(false);
  try {
    await Deno.writeTextFile(`${tmp.root}/app/harness/h.sh`, HARNESS + "# changed\n");
    const r = await reg.call("act_app", {});
    assert.match(text(r), /execution path `app\/harness` of the tool `act_app` changed/);
    assert.equal(text(await reg.call("stats_app", {})), "stats");
  } finally {
    await reg.close();
    await tmp.cleanup();
  }
});

Deno.test("with a lock: a PATH program swapped after open is refused before it runs", async () => {
  const { tmp, reg } = await open(true);
  try {
    assert.equal(reg.lock?.drift.length, 0);
    assert.equal(text(await reg.call("greet_app", {})), "greeted\n");
    await Deno.writeTextFile(`${tmp.root}/bin/greettool`, "#!/bin/sh\necho pwned\n");
    const r = await reg.call("greet_app", {});
    assert.match(
      text(r),
      /LOCK_MISMATCH: program `command` `bin\/greettool` of the tool `greet_app`/,
    );
    assert.doesNotMatch(text(r), /pwned/);
  } finally {
    await reg.close();
    await tmp.cleanup();
  }
});

Deno.test("a stop command whose pinned folder changed after the last call is not run", async () => {
  const { tmp, reg } = await open(false);
  try {
    assert.equal(text(await reg.call("act_app", {})), "acted"); // the session is running
    // The stop command would now record that it ran; it must not.
    await Deno.writeTextFile(
      `${tmp.root}/app/harness/h.sh`,
      HARNESS.replace("case", `[ "$1" = stop ] && touch "${tmp.root}/stop-ran"\ncase`),
    );
    await reg.close();
    assert.throws(() => Deno.statSync(`${tmp.root}/stop-ran`), Deno.errors.NotFound);
    assert.deepEqual(reg.sessions.sessions().map((s) => s.phase), ["closed"]);
  } finally {
    await reg.close();
    await tmp.cleanup();
  }
});
