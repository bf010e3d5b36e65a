import assert from "node:assert/strict";
import fs from "node:fs";
import { NATIVE_LIMITS } from "../../lib/native/limits.ts";
import { admits, appTree, call, err, folderView, type Json, nativeEnv, ok } from "./_helpers.ts";

function pidAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

Deno.test("shell_exec: command XOR executable; args only with executable", async () => {
  const t = appTree();
  try {
    assert.match(err(await call("shell_exec", {}, t.e)), /exactly one of `command`/);
    assert.match(
      err(await call("shell_exec", { command: "true", executable: "true" }, t.e)),
      /exactly one/,
    );
    assert.match(
      err(await call("shell_exec", { command: "true", args: ["x"] }, t.e)),
      /`args` goes with `executable`/,
    );
    const r: Json = ok(
      await call("shell_exec", { executable: "printf", args: ["%s|%s", "a b", "$HOME"] }, t.e),
    );
    assert.equal(r.stdout.text, "a b|$HOME", "arguments are never interpreted by a shell");
  } finally {
    t.rm();
  }
});

Deno.test("shell_exec: stdout and stderr are captured separately with exit status", async () => {
  const t = appTree({ "sub/f.txt": "in sub\n" });
  try {
    const r: Json = ok(
      await call("shell_exec", { command: "cat f.txt; echo oops >&2; exit 3", cwd: "sub" }, t.e),
    );
    assert.deepEqual([r.exitCode, r.stdout.text, r.stderr.text, r.timedOut, r.cwd], [
      3,
      "in sub\n",
      "oops\n",
      false,
      "sub",
    ]);
  } finally {
    t.rm();
  }
});

Deno.test("shell_exec: output bound per stream — at, below and above maxOutputBytes", async () => {
  const t = appTree();
  try {
    for (const [n, truncated] of [[99, false], [100, false], [101, true]] as const) {
      const r: Json = ok(
        await call("shell_exec", {
          command: `head -c ${n} /dev/zero | tr '\\0' a; head -c ${n} /dev/zero | tr '\\0' b >&2`,
          maxOutputBytes: 100,
        }, t.e),
      );
      assert.deepEqual([r.stdout.text.length, r.stdout.bytes, r.stdout.truncated], [
        Math.min(n, 100),
        n,
        truncated,
      ]);
      assert.deepEqual([r.stderr.text.length, r.stderr.truncated], [Math.min(n, 100), truncated]);
    }
    assert.equal(NATIVE_LIMITS.shellDefaultOutputBytes, 32 * 1024);
    assert.ok(
      admits("shell_exec", { command: "x", maxOutputBytes: NATIVE_LIMITS.shellMaxOutputBytes }),
    );
    assert.ok(
      !admits("shell_exec", {
        command: "x",
        maxOutputBytes: NATIVE_LIMITS.shellMaxOutputBytes + 1,
      }),
    );
  } finally {
    t.rm();
  }
});

Deno.test("shell_exec: the deadline ends the whole process group (TERM, then KILL)", async () => {
  const t = appTree();
  try {
    assert.equal(NATIVE_LIMITS.shellDefaultTimeoutMs, 30_000);
    assert.ok(admits("shell_exec", { command: "x", timeoutMs: NATIVE_LIMITS.shellMaxTimeoutMs }));
    assert.ok(
      !admits("shell_exec", { command: "x", timeoutMs: NATIVE_LIMITS.shellMaxTimeoutMs + 1 }),
    );
    assert.ok(!admits("shell_exec", { command: "x", timeoutMs: 0 }));
    // The pid files appear whole (mv) and only once both processes exist; a deadline that
    // fired before the shell got there (a busy machine) proves nothing, so it is doubled.
    const script = "trap '' TERM; sleep 60 & echo $! > c.tmp; echo $$ > l.tmp; " +
      "mv c.tmp child.pid; mv l.tmp leader.pid; wait";
    let timeoutMs = 300;
    for (;;) {
      const r: Json = ok(await call("shell_exec", { command: script, timeoutMs }, t.e));
      assert.equal(r.timedOut, true);
      if (fs.existsSync(`${t.app}/leader.pid`)) break;
      assert.ok(timeoutMs < 60_000, "the shell never wrote its pid files");
      timeoutMs *= 2;
    }
    for (const f of ["child.pid", "leader.pid"]) {
      const pid = Number(fs.readFileSync(`${t.app}/${f}`, "utf8"));
      assert.equal(pidAlive(pid), false, `${f} survived`);
    }
  } finally {
    t.rm();
  }
});

Deno.test("shell_exec: environment is PATH and HOME plus explicit overrides", async () => {
  const t = appTree();
  try {
    const r: Json = ok(await call("shell_exec", { command: "env", env: { EXTRA: "1" } }, t.e));
    const names = r.stdout.text.trim().split("\n").map((l: string) => l.split("=")[0]).filter((
      n: string,
    ) => n !== "PWD" && n !== "SHLVL" && n !== "_").sort();
    // TMP* are the call's private folder; the tag lets a setsid'd descendant be reaped.
    assert.deepEqual(names, [
      "EXTRA",
      "HOME",
      "PATH",
      "TEMP",
      "TMP",
      "TMPDIR",
      "_TOOLHOST_GROUP_TAG",
    ]);
    assert.ok(!r.stdout.text.includes("base-only"));
    assert.match(
      err(await call("shell_exec", { command: "env", env: { TOOLHOST_X: "1" } }, t.e)),
      /may not set TOOLHOST_/,
    );
  } finally {
    t.rm();
  }
});

Deno.test("shell_exec: protected bindings need a grant; granted values reach only the env", async () => {
  const t = appTree();
  try {
    const args = { command: 'printf %s "$TOKEN"', protectedBindings: { TOKEN: "protected://t" } };
    assert.match(err(await call("shell_exec", args, t.e)), /enable the protected-values plugin/);
    const granted = { ...t.e, grantedEnv: { TOKEN: "v4lue" } };
    const r: Json = ok(await call("shell_exec", args, granted));
    assert.equal(r.stdout.text, "v4lue");
  } finally {
    t.rm();
  }
});

Deno.test("shell_exec: cwd stays inside the Artifact; symlinked and escaping cwd are refused", async () => {
  const t = appTree({ "real/x": "x", "link": { symlink: "real" }, "out": { symlink: ".." } });
  try {
    for (const cwd of ["link", "out", "..", "/tmp", "real/x", "nope"]) {
      assert.equal((await call("shell_exec", { command: "pwd", cwd }, t.e)).isError, true, cwd);
    }
    const r: Json = ok(await call("shell_exec", { command: "pwd", cwd: "real" }, t.e));
    assert.equal(r.stdout.text.trim(), `${t.app}/real`);
    const file = nativeEnv({
      id: "n",
      kind: "file",
      physicalPath: `${t.app}/real/x`,
      cwd: `${t.app}/real`,
    }, t.state);
    const f: Json = ok(await call("shell_exec", { command: "ls" }, file));
    assert.equal(f.stdout.text, "x\n");
    assert.equal((await call("shell_exec", { command: "ls", cwd: "sub" }, file)).isError, true);
  } finally {
    t.rm();
  }
});

Deno.test("shell_exec: an executable given as a logical path must be a real file in the Artifact", async () => {
  const t = appTree({ "bin/run.sh": "#!/bin/sh\necho ran\n", "bin/link": { symlink: "run.sh" } });
  try {
    fs.chmodSync(`${t.app}/bin/run.sh`, 0o755);
    const r: Json = ok(await call("shell_exec", { executable: "bin/run.sh" }, t.e));
    assert.equal(r.stdout.text, "ran\n");
    assert.match(err(await call("shell_exec", { executable: "bin/link" }, t.e)), /symlink/);
    assert.match(
      err(await call("shell_exec", { executable: "no-such-program-xyz" }, t.e)),
      /not found on PATH/,
    );
  } finally {
    t.rm();
  }
});

Deno.test("shell_exec: cancellation stops the command", async () => {
  const t = appTree();
  try {
    const ctl = new AbortController();
    const e = { ...nativeEnv(folderView("app", t.app), t.state), signal: ctl.signal };
    setTimeout(() => ctl.abort(), 200);
    const r = await call("shell_exec", { command: "sleep 30" }, e);
    assert.match(err(r), /cancelled/);
  } finally {
    t.rm();
  }
});

Deno.test("shell_exec: its process group is journaled in its call directory while it runs", async () => {
  // Like a command call (tests/sessions/call_sweep_test.ts): after a crash, sweep finds it.
  const t = appTree();
  const ctl = new AbortController();
  try {
    // Written whole (mv), so existing means readable; waited for however long it takes.
    const script = "echo $$ > leader.tmp; mv leader.tmp leader.pid; sleep 30";
    const running = call("shell_exec", { command: script }, { ...t.e, signal: ctl.signal });
    const leaderFile = `${t.app}/leader.pid`;
    while (!fs.existsSync(leaderFile)) await delay(10);
    const leader = Number(fs.readFileSync(leaderFile, "utf8").trim());
    const [name] = fs.readdirSync(`${t.state}/calls`);
    const journal = fs.readFileSync(`${t.state}/calls/${name}/journal.jsonl`, "utf8");
    const admitted = JSON.parse(journal.trim().split("\n")[0]);
    assert.equal(admitted.op, "admit");
    assert.equal(admitted.pid, leader);
    ctl.abort();
    await running;
    assert.deepEqual(fs.readdirSync(`${t.state}/calls`), []);
  } finally {
    t.rm();
  }
});

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
