/**
 * Warm spares for unconfined calls: the environment. A call that runs in a spare sees
 * exactly what a cold one sees, whatever environment the call the spare followed had (its
 * base: only the difference is on the call's line), and a typical user's environment that
 * did not change between calls is taken by a spare.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { WarmPool } from "../../lib/sandbox/warm_pool.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip } from "./_corpus.ts";
import { normalize, TRICKY } from "./_warm.ts";
import {
  FILES,
  gone,
  open,
  shCall,
  skip,
  text,
  TOML,
  TRICKY_ARGS,
  trickyEnvs,
  warmSecond,
} from "./_warm_host.ts";

Deno.test("warm host spare: the tool sees the cold path's env, argv, cwd, stdin, fds, signals", async () => {
  if (skip) return printSkip("warm host env/argv/fds", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  for (const env of trickyEnvs()) {
    const cold = await open(ws.root, false, env);
    const warm = await open(ws.root, true, env);
    try {
      for (const args of TRICKY_ARGS) {
        const c = await cold.call("probe_app", args);
        const w = await warmSecond(warm, "probe_app", args);
        assert.equal(c.isError, false, text(c));
        assert.equal(normalize(text(w)), normalize(text(c)));
        assert.match(text(c), /^fd 0 /m); // the report is there at all
        assert.match(text(c), /^SigIgn:/m);
      }
      const jc = await cold.call("jprobe_app", {});
      const jw = await warmSecond(warm, "jprobe_app", {});
      assert.equal(jc.isError, false, text(jc));
      const [stdinC, envC] = text(jc).split(" ");
      const [stdinW, envW] = text(jw).split(" ");
      assert.equal(normalize(`stdin ${stdinW}`), normalize(`stdin ${stdinC}`));
      assert.equal(normalize(`env ${envW}`), normalize(`env ${envC}`));
      assert.match(Buffer.from(stdinW, "hex").toString(), /"outputDir":/);
    } finally {
      await cold.close();
      await warm.close();
    }
  }
});

Deno.test("warm host spare: a call line too long for a waiter's byte-wise read runs cold", async () => {
  if (skip) return printSkip("warm host long line", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const env = { PATH: "/usr/bin:/bin" };
  const cold = await open(ws.root, false, env);
  const warm = await open(ws.root, true, env);
  try {
    const args = { a: TRICKY.join("|").repeat(6), b: "y" }; // twice on the command line
    const c = await cold.call("probe_app", args);
    await warm.call("probe_app", args);
    const w = await warm.call("probe_app", args);
    const { spawned, taken } = warm.warm!.stats;
    assert.deepEqual({ spawned, taken }, { spawned: 0, taken: 0 }, "no spare for it");
    assert.equal(normalize(text(w)), normalize(text(c)));
  } finally {
    await cold.close();
    await warm.close();
  }
});

function hex(s: string): string {
  return Buffer.from(s).toString("hex");
}

/** A typical user's environment: about 3 KiB in 40 variables. */
function userEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/root" };
  for (let i = 0; i < 38; i++) env[`USER_VAR_${i}`] = `value-${i}-${"x".repeat(60)}`;
  return env;
}

Deno.test("warm host spare: a typical 3 KiB environment that did not change takes the spare", async () => {
  if (skip) return printSkip("warm host user env", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const env = userEnv();
  const bytes = Object.entries(env).reduce((n, [k, v]) => n + k.length + v.length + 2, 0);
  assert.ok(bytes > 3000, `${bytes} bytes`);
  const cold = await open(ws.root, false, env);
  const warm = await open(ws.root, true, env);
  try {
    for (const args of TRICKY_ARGS.slice(0, 2)) {
      const c = await cold.call("probe_app", args);
      const w = await warmSecond(warm, "probe_app", args); // asserts the spare was taken
      assert.equal(c.isError, false, text(c));
      assert.equal(normalize(text(w)), normalize(text(c)));
    }
    const jc = await cold.call("jprobe_app", {});
    const jw = await warmSecond(warm, "jprobe_app", {});
    assert.equal(
      normalize(`env ${text(jw).split(" ")[1]}`),
      normalize(`env ${text(jc).split(" ")[1]}`),
    );
  } finally {
    await cold.close();
    await warm.close();
  }
});

Deno.test("warm host spare: a spare spawned after env A, taken by a call with env B, gives B exactly", async () => {
  if (skip) return printSkip("warm host env diff", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const probe = join(ws.root, "app", "tools", "probe.sh");
  const a: Record<string, string> = {
    PATH: "/usr/bin:/bin",
    KEEP: TRICKY[0],
    CHANGED: TRICKY[3],
    GONE: TRICKY[1],
    GONE2: TRICKY[2],
    IFS: ":",
    PWD: "/nowhere",
    OLDPWD: "/old",
    ENV: "/etc/profile",
    OPTIND: "7",
    PS4: "+ $(id)",
    _th_p: "exit 0",
  };
  const b: Record<string, string> = {
    PATH: "/usr/bin:/bin",
    KEEP: TRICKY[0],
    CHANGED: TRICKY[2],
    NEW: TRICKY[1],
    NEW2: TRICKY[5],
    NEW3: TRICKY[4],
    IFS: TRICKY[5],
    PWD: `PWD ${TRICKY[1]}`,
    ENV: "$(touch /tmp/pwned)",
    EMPTY: "",
  };
  const pool = new WarmPool();
  const call = (env: Record<string, string>, warm?: WarmPool) =>
    shCall(ws.root, "", warm, { command: probe, template: [], baseEnv: env });
  try {
    for (const [first, second] of [[a, b], [b, a], [b, b]]) {
      const c = await call(second);
      assert.equal(c.isError, false, text(c));
      await call(first, pool);
      await pool.settled();
      const taken = pool.stats.taken;
      const w = await call(second, pool);
      if (second.OPTIND === undefined) assert.equal(pool.stats.taken, taken + 1, "spare taken");
      assert.equal(normalize(text(w)), normalize(text(c)));
      if (second === b) assert.ok(!text(w).includes(hex("/nowhere")), "nothing of a's");
    }
    // An environment too far from the spare's base runs cold; the next spare follows it.
    const big = { ...b };
    for (let i = 0; i < 20; i++) big[`BIG_${i}`] = TRICKY.join("|");
    const taken = pool.stats.taken;
    const c = await call(big);
    assert.equal(normalize(text(await call(big, pool))), normalize(text(c)));
    assert.equal(pool.stats.taken, taken, "too long a line: cold");
    await pool.settled();
    assert.equal(normalize(text(await call(big, pool))), normalize(text(c)));
    assert.equal(pool.stats.taken, taken + 1, "unchanged since: warm");
  } finally {
    await pool.close();
  }
  assert.deepEqual(await gone(ws.root), []);
});
