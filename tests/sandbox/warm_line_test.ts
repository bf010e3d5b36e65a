/**
 * A warm sandbox's call line (lib/sandbox/warm_spare.ts `sandboxWaiterBase`): its waiter
 * is spawned holding its own tmp dir's variables and bwrap sets the sandbox's `PATH`, so
 * the line (read by dash a byte per system call, on the call's critical path) carries only
 * what the call changes — and a call that changes them still sees exactly its own values,
 * as on the cold path.
 */

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { WarmPool } from "../../lib/sandbox/warm_pool.ts";
import { openConfine } from "../../lib/sandbox/confine.ts";
import { invokePlainCommand } from "../../lib/protocols/invoke.ts";
import { toolEnvironment } from "../../lib/process/env.ts";
import { waiterShell } from "../../lib/process/warm_script.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

const TOML = `[artifacts.app]
path = "app"
`;

const skip = skipReason() ?? (waiterShell() === null ? "no trusted dash" : undefined);

async function confined(root: string) {
  const stateDir = join(root, ".toolhost", "state");
  mkdirSync(stateDir, { recursive: true });
  const c = openConfine({
    policy: { mode: "none", network: false, read: [], write: [] },
    stateDir,
  }, { ws: await loadWorkspace(root), scope: [], executionPaths: [] });
  if (!c.ok) throw new Error(c.reason);
  return { stateDir, confine: c.confine };
}

function text(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

/** `env` output, sorted, with the call's own directory and the group tag masked. */
function envOf(out: string): string[] {
  return out.split("\n").filter((v) => v !== "" && !v.startsWith("_TOOLHOST_GROUP_TAG="))
    .map((v) => v.replace(/calls\/[0-9a-f]{24}/g, "calls/CALL")).sort();
}

Deno.test("warm sandbox line: what the waiter holds with the call's value is not on it", async () => {
  if (skip) return printSkip("warm line", skip);
  await using ws = await tempWorkspace(TOML, { "app/x": "" });
  const { stateDir, confine } = await confined(ws.root);
  const pool = new WarmPool();
  try {
    const req = { confine, cwd: "/", stateDir };
    assert.equal(await pool.take(req), undefined); // none yet: a cold call's turn
    pool.replenish(req); // its end: the key's spare is spawned
    await pool.settled();
    const spare = await pool.take({ confine, cwd: "/", stateDir });
    assert.ok(spare !== undefined, "a spare was waiting");
    const base = { PATH: "/usr/bin:/bin", HOME: "/home/x" };
    const env = toolEnvironment(base, {}, { tmpDir: spare.dirs.tmpDir });
    const handed = spare.handover("/bin/true", [], env);
    assert.ok(handed !== undefined);
    const line = Buffer.from(handed.payload).toString("utf8");
    for (const name of ["PATH", "TMPDIR", "TMP", "TEMP"]) {
      assert.doesNotMatch(line, new RegExp(`export ${name}=`), `${name} is not on the line`);
    }
    assert.match(line, /export HOME='\/home\/x'/);
    assert.match(line, /exec '\/bin\/true'\n$/);
    // Never run: the spare is ended and its directories removed.
    await spare.settle();
    await spare.dirs.remove();
  } finally {
    await pool.close();
  }
});

Deno.test("warm sandbox line: a call's own tmp variables and PATH reach it as cold", async () => {
  if (skip) return printSkip("warm line values", skip);
  await using ws = await tempWorkspace(TOML, { "app/x": "" });
  const { stateDir, confine } = await confined(ws.root);
  const pool = new WarmPool();
  const call = (warm?: WarmPool) =>
    invokePlainCommand({
      command: "/usr/bin/env",
      template: [],
      properties: [],
      args: {},
      cwd: "/",
      stateDir,
      baseEnv: { PATH: "/usr/bin:/bin", TMPDIR: "/from/base" },
      extraEnv: { TMP: "/own tmp 'x'", PATH: "/not/used" },
      confine,
      warm,
    });
  try {
    const cold = await call();
    assert.equal(cold.isError, false, text(cold));
    await call(pool); // leaves a spare
    await pool.settled();
    const taken = pool.stats.taken;
    const warm = await call(pool);
    assert.equal(pool.stats.taken, taken + 1, "the call ran in a spare");
    assert.deepEqual(envOf(text(warm)), envOf(text(cold)));
    assert.ok(envOf(text(cold)).includes("TMP=/own tmp 'x'"));
  } finally {
    await pool.close();
  }
});
