/**
 * A confined spare's key is worked out once per `Confine`, working directory and state
 * directory (lib/sandbox/warm_key.ts): when the host changes what a cold call would bind
 * (a `-try` source appears), a spare spawned before is never used — the take compares the
 * whole command line — and the next spare, filed under the same key, binds it and is taken.
 */

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WarmPool } from "../../lib/sandbox/warm_pool.ts";
import { openConfine } from "../../lib/sandbox/confine.ts";
import { invokePlainCommand } from "../../lib/protocols/invoke.ts";
import { waiterShell } from "../../lib/process/warm_script.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

const skip = skipReason() ?? (waiterShell() === null ? "no trusted dash" : undefined);

function text(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

Deno.test("warm key: a source that appears after a spare was spawned is bound by the next", async () => {
  if (skip) return printSkip("warm key", skip);
  await using ws = await tempWorkspace(`[artifacts.app]\npath = "app"\n`, { "app/x": "" });
  const stateDir = join(ws.root, ".toolhost", "state");
  const data = join(ws.root, "data");
  const c = openConfine({
    policy: { mode: "none", network: false, read: [data], write: [] },
    stateDir,
  }, { ws: await loadWorkspace(ws.root), scope: [], executionPaths: [] });
  if (!c.ok) throw new Error(c.reason);
  const pool = new WarmPool();
  const call = async () =>
    text(
      await invokePlainCommand({
        command: "/bin/sh",
        template: ["-c", `cat ${data}/f 2>/dev/null || echo none`],
        properties: [],
        args: {},
        cwd: "/",
        stateDir,
        baseEnv: { PATH: "/usr/bin:/bin" },
        confine: c.confine,
        warm: pool,
      }),
    );
  try {
    assert.equal(await call(), "none\n");
    await pool.settled(); // a spare without the (missing) data folder bound
    mkdirSync(data);
    writeFileSync(join(data, "f"), "there\n");
    assert.equal(await call(), "there\n");
    assert.equal(pool.stats.taken, 0, "the spare without the bind was not used");
    await pool.settled();
    assert.equal(await call(), "there\n");
    assert.equal(pool.stats.taken, 1, "the next spare, under the same key, was");
  } finally {
    await pool.close();
  }
});
