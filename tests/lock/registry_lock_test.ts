/**
 * `toolhost.lock` and the registry: writing it (stable, sorted, reviewable), a tool whose
 * script is edited after locking is refused with LOCK_MISMATCH while the others work,
 * re-described / new / removed tools and changed session binaries, an eval missing from
 * the lock, `lock: false`, and a malformed lock file.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { sha256Hex } from "../../lib/lock/canonical.ts";
import { LockMismatch } from "../../lib/lock/errors.ts";
import {
  lockPath,
  parseLockFile,
  renderLockFile,
  writeLockFile,
} from "../../lib/lock/lock_file.ts";
import { BLOCKED_DESCRIPTION } from "../../lib/lock/registry_lock.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const STATS = `#!/bin/sh
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

[artifacts.app.evals.other]
audience = "agent"

[artifacts.app.views.agent_tools.read]
builtin = "read"

[artifacts.app.views.agent_tools.stats]
description = "Stats of {artifactName}."
protocol = "json"
command = "tools/stats.sh"
args = []
execution_paths = ["app/tools/stats.sh"]

[artifacts.app.views.agent_sessions.h]
start = { command = "tools/harness.sh", args = ["start"], execution_paths = ["app/tools/harness.sh"] }
stop = { command = "tools/harness.sh", args = ["stop"], execution_paths = ["app/tools/harness.sh"] }

[artifacts.app.views.agent_tools.act]
session = "h"
description = "Act."
protocol = "json"
command = "tools/harness.sh"
args = ["act"]
`;

const FILES = {
  "app/README.md": "# app\n",
  "app/tools/stats.sh": { text: STATS, mode: 0o755 },
  "app/tools/harness.sh": { text: HARNESS, mode: 0o755 },
};

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

async function locked() {
  const tmp = await tempWorkspace(TOML, FILES);
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir: `${tmp.root}/.state` }));
  return { tmp, ws, stateDir: `${tmp.root}/.state` };
}

Deno.test("the lock file: sorted keys, 2-space indent, trailing newline; same hashes as provenance", async () => {
  const { tmp, ws, stateDir } = await locked();
  try {
    const text = await Deno.readTextFile(lockPath(ws));
    const lock = parseLockFile(text);
    assert.equal(renderLockFile(lock), text);
    assert.ok(text.endsWith("}\n") && text.startsWith('{\n  "evals": {\n'));
    assert.deepEqual(Object.keys(lock.evals), ["app/other", "app/review"]);
    const review = lock.evals["app/review"];
    assert.deepEqual(Object.keys(review.tools), [
      "act_app",
      "get_artifact_field",
      "read_app",
      "search_artifact_content",
      "stats_app",
    ]);
    const reg = await Registry.open(ws, "app/review", { stateDir });
    try {
      assert.deepEqual(
        review.tools.stats_app.executionPaths,
        reg.provenance().executionPaths.stats_app,
      );
      assert.deepEqual(Object.keys(review.sessions), ["h_app"]);
      assert.deepEqual(
        review.sessions.h_app.executionPaths.start,
        reg.provenance().executionPaths["h_app.start"],
      );
      assert.equal(review.tools.stats_app.description, sha256Hex("Stats of app."));
      assert.equal(reg.lock?.drift.length, 0);
    } finally {
      await reg.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("editing a tool's script after locking: its calls are refused, the others work", async () => {
  const { tmp, ws, stateDir } = await locked();
  try {
    await Deno.writeTextFile(`${tmp.root}/app/tools/stats.sh`, STATS + "# changed\n");
    const reg = await Registry.open(ws, "app/review", { stateDir });
    try {
      const r = await reg.call("stats_app", {});
      assert.equal(r.isError, true);
      assert.match(text(r), /^LOCK_MISMATCH: the tool `stats_app` was refused/);
      assert.match(text(r), /execution path `app\/tools\/stats.sh` changed/);
      assert.doesNotMatch(text(r), /# changed|printf/); // names and fields, never contents
      const listed = reg.list().find((t) => t.name === "stats_app")!;
      assert.equal(listed.description, BLOCKED_DESCRIPTION);
      assert.equal((await reg.call("read_app", { path: "README.md" })).isError, false);
      assert.equal(text(await reg.call("act_app", {})), "acted");
    } finally {
      await reg.close();
    }
    // lock: false skips verification (and warns once on stderr).
    const open = await Registry.open(ws, "app/review", { stateDir, lock: false });
    try {
      assert.equal(text(await open.call("stats_app", {})), "stats");
    } finally {
      await open.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("a changed session binary blocks the tools bound to that session only", async () => {
  const { tmp, ws, stateDir } = await locked();
  try {
    await Deno.writeTextFile(`${tmp.root}/app/tools/harness.sh`, HARNESS + "# changed\n");
    const reg = await Registry.open(ws, "app/review", { stateDir });
    try {
      const r = await reg.call("act_app", {});
      assert.match(
        text(r),
        /session `h_app`: start execution path `app\/tools\/harness.sh` changed/,
      );
      assert.equal(text(await reg.call("stats_app", {})), "stats");
      assert.deepEqual(reg.lock?.blocked(), ["act_app"]);
    } finally {
      await reg.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("re-described, new and removed tools; an eval missing from the lock", async () => {
  const { tmp, stateDir } = await locked();
  try {
    const toml = TOML.replace('description = "Act."', 'description = "Act now."')
      .replace(
        '[artifacts.app.views.agent_tools.read]\nbuiltin = "read"',
        '[artifacts.app.views.agent_tools.look]\nbuiltin = "read"',
      );
    await Deno.writeTextFile(`${tmp.root}/toolhost.toml`, toml);
    const ws = await loadWorkspace(tmp.root);
    const reg = await Registry.open(ws, "app/review", { stateDir });
    try {
      assert.match(text(await reg.call("act_app", {})), /tool `act_app`: description changed/);
      assert.match(
        text(await reg.call("look_app", { path: "README.md" })),
        /tool `look_app`: not in toolhost.lock/,
      );
      assert.ok(reg.lock!.drift.some((d) => d.name === "read_app" && d.change === "removed"));
      assert.equal(text(await reg.call("stats_app", {})), "stats");
    } finally {
      await reg.close();
    }
    await writeLockFile(ws, await buildLock(ws, { evals: ["app/review"], stateDir }));
    const fresh = await Registry.open(ws, "app/review", { stateDir });
    await fresh.close();
    assert.equal(fresh.lock?.drift.length, 0);
    // An eval the lock does not know: every tool blocked.
    const lock = parseLockFile(await Deno.readTextFile(lockPath(ws)));
    delete lock.evals["app/other"];
    await writeLockFile(ws, lock);
    const other = await Registry.open(ws, "app/other", { stateDir });
    try {
      assert.match(
        text(await other.call("stats_app", {})),
        /eval `app\/other`: not in toolhost.lock/,
      );
    } finally {
      await other.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("a malformed lock file fails closed with LOCK_MISMATCH, naming no content", async () => {
  const { tmp, ws, stateDir } = await locked();
  try {
    for (
      const bad of [
        "{not json",
        '{"lockfileVersion":3,"evals":{}}',
        '{"lockfileVersion":1,"evals":{}}',
        '{"lockfileVersion":2,"evals":{"a/b":{"declaration":{},"programs":{},"tools":{"x":{"description":"zz","inputSchema":"","declaration":{},"executionPaths":{},"programs":{}}},"sessions":{},"extensions":{}}}}',
      ]
    ) {
      await Deno.writeTextFile(lockPath(ws), bad);
      await assert.rejects(Registry.open(ws, "app/review", { stateDir }), (e) => {
        assert.ok(e instanceof LockMismatch);
        assert.equal(e.code, "LOCK_MISMATCH");
        assert.doesNotMatch(e.message, /zz|not json/);
        return true;
      });
    }
  } finally {
    await tmp.cleanup();
  }
});
