/**
 * A warm sandbox's bind identities through the host's own `stat` (lib/sandbox/warm_fresh.ts
 * `hostIdentity`, set by `installDenoHost` of cli.ts): used where set, equal to nothing a
 * changed object gives (a replaced or re-moded program makes the spare stale, as through
 * `node:fs`), and `node:fs` is asked where the host's answer lacks a part.
 */

import assert from "node:assert/strict";
import { chmodSync, renameSync, type Stats, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { boundIdentity } from "../../lib/sandbox/warm_fresh.ts";
import { useHostObjectStat } from "../../lib/paths/host_object_stat.ts";
import { WarmPool } from "../../lib/sandbox/warm_pool.ts";
import { openConfine } from "../../lib/sandbox/confine.ts";
import { invokePlainCommand } from "../../lib/protocols/invoke.ts";
import { waiterShell } from "../../lib/process/warm_script.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { withDenoHost } from "../helpers/deno_host.ts";
import { printSkip, skipReason } from "./_corpus.ts";

const skip = skipReason() ?? (waiterShell() === null ? "no trusted dash" : undefined);

/** A whole host answer for `p` from `node:fs`, with `change`'s parts replaced. */
function hostAnswer(
  p: string,
  change: (st: Stats) => { dev?: number; ino?: number },
) {
  const st = statSync(p);
  const { dev, ino, size, mode, uid, ctime } = st;
  return {
    isFile: st.isFile(),
    isDirectory: st.isDirectory(),
    isSymlink: false,
    size,
    dev,
    ino,
    mode,
    uid,
    ctime,
    ...change(st),
  };
}

Deno.test("warm identity: the host's stat is asked where set, node:fs where it lacks a part", () => {
  const args = ["--ro-bind", "/usr", "/usr", "--ro-bind-try", "/etc/passwd", "/etc/passwd", "--"];
  const plain = boundIdentity(args, "/");
  const asked: string[] = [];
  try {
    useHostObjectStat((p) => {
      asked.push(p);
      const st = statSync(p);
      const { dev, ino, size } = st;
      return {
        isFile: st.isFile(),
        isDirectory: st.isDirectory(),
        isSymlink: false,
        size,
        dev,
        ino,
      };
    });
    assert.equal(boundIdentity(args, "/"), plain, "no mode, uid or ctime: node:fs answers");
    assert.deepEqual(asked, ["/", "/usr", "/etc/passwd"]);
    useHostObjectStat((p) => hostAnswer(p, (st) => ({ dev: st.dev + 1 }))); // told apart
    const viaHost = boundIdentity(args, "/");
    assert.equal(boundIdentity(args, "/"), viaHost);
    assert.notEqual(viaHost, plain, "the host's own answer is what counts");
    useHostObjectStat((p) => hostAnswer(p, () => ({ ino: 2 ** 53 + 2 }))); // not exact: node:fs is asked
    assert.equal(boundIdentity(args, "/"), plain);
  } finally {
    useHostObjectStat(undefined);
  }
});

Deno.test("warm identity (Deno host): a replaced or re-moded program makes its spare stale", async () => {
  if (skip) return printSkip("warm host identity", skip);
  await using ws = await tempWorkspace(`[artifacts.app]\npath = "app"\n`, {
    "app/tools/v.sh": { text: "#!/bin/sh\necho v1\n", mode: 0o755 },
  });
  const program = join(ws.root, "app", "tools", "v.sh");
  const stateDir = join(ws.root, ".toolhost", "state");
  const c = openConfine({
    policy: { mode: "none", network: false, read: [], write: [] },
    stateDir,
  }, {
    ws: await loadWorkspace(ws.root),
    scope: [],
    executionPaths: ["app/tools/v.sh"],
    program,
  });
  if (!c.ok) throw new Error(c.reason);
  const pool = new WarmPool();
  const call = async () => {
    const r = await invokePlainCommand({
      command: program,
      template: [],
      properties: [],
      args: {},
      cwd: join(ws.root, "app"),
      stateDir,
      baseEnv: { PATH: "/usr/bin:/bin" },
      confine: c.confine,
      warm: pool,
    });
    return r.content.map((b) => (b as { text?: string }).text ?? "").join("");
  };
  await withDenoHost(async () => {
    try {
      assert.equal(await call(), "v1\n");
      await pool.settled();
      writeFileSync(`${program}.new`, "#!/bin/sh\necho v2\n", { mode: 0o755 });
      renameSync(`${program}.new`, program);
      assert.equal(await call(), "v2\n");
      assert.equal(pool.stats.taken, 0, "the stale spare was ended, not used");
      await pool.settled();
      chmodSync(program, 0o700);
      assert.equal(await call(), "v2\n");
      assert.equal(pool.stats.taken, 0, "a changed mode makes it stale too");
      await pool.settled();
      assert.equal(await call(), "v2\n");
      assert.equal(pool.stats.taken, 1, "an unchanged one is taken");
    } finally {
      await pool.close();
    }
  });
});
