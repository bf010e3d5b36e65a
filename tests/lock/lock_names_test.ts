/**
 * Names from a manifest or a (tampered) lock never reach `Object.prototype` and are
 * escaped in messages; the lock file is read only when it is a small regular file.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { canonicalJson, stableJson } from "../../lib/lock/canonical.ts";
import { describeDrift } from "../../lib/lock/compare.ts";
import { diffLocks } from "../../lib/lock/diff_locks.ts";
import { LockMismatch } from "../../lib/lock/errors.ts";
import { ExtensionLockCheck } from "../../lib/lock/extension_lock.ts";
import { extensionLock } from "../../lib/lock_build/build_lock.ts";
import { type EvalLock, parseLockFile, readLockFile } from "../../lib/lock/lock_file.ts";

/** Does `s` hold an ESC, CR, LF or right-to-left override? */
const hasUnsafe = (s: string) => ["\u001b", "\r", "\n", "\u202e"].some((c) => s.includes(c));

const HASH = "a".repeat(64);
const EMPTY_EVAL: EvalLock = {
  declaration: {},
  programs: {},
  tools: {},
  sessions: {},
  extensions: {},
};

Deno.test("lock --check: an extension named `constructor` added after locking is drift", () => {
  const now: EvalLock = {
    ...EMPTY_EVAL,
    extensions: { constructor: { declaration: { command: "x" }, programs: {}, tools: {} } },
  };
  const drift = diffLocks(
    { lockfileVersion: 2, evals: { "app/r": EMPTY_EVAL } },
    { lockfileVersion: 2, evals: { "app/r": now } },
  );
  assert.deepEqual(drift, [
    { kind: "extension", name: "constructor", field: "entry", change: "added", evalId: "app/r" },
  ]);
  // The reverse, and prototype names for evals, tools and pins.
  assert.equal(
    diffLocks(
      { lockfileVersion: 2, evals: { "app/r": now } },
      { lockfileVersion: 2, evals: { "app/r": EMPTY_EVAL } },
    )[0].change,
    "removed",
  );
  const withTool: EvalLock = {
    ...EMPTY_EVAL,
    tools: {
      toString: {
        description: HASH,
        inputSchema: HASH,
        declaration: {},
        executionPaths: { hasOwnProperty: HASH },
        programs: {},
      },
    },
  };
  assert.deepEqual(
    diffLocks(
      { lockfileVersion: 2, evals: { constructor: EMPTY_EVAL } },
      { lockfileVersion: 2, evals: { constructor: withTool } },
    ).map(describeDrift),
    ["constructor: tool `toString`: not in toolhost.lock"],
  );
});

Deno.test("extension checks: prototype names find no lock entry", async () => {
  const check = new ExtensionLockCheck("app/r", EMPTY_EVAL, "/", {});
  assert.equal(
    (await check.serverDrift({ name: "constructor", command: "x", args: [] }))[0].change,
    "added",
  );
  const { blocked } = check.toolCheck("constructor", [{ name: "valueOf", inputSchema: {} }]);
  assert.deepEqual([...blocked.keys()], ["valueOf"]);
});

Deno.test("a tool named `__proto__` stays an own key of the lock", () => {
  const ext = extensionLock({ declaration: { command: "x" }, programs: {} }, [{
    name: "__proto__",
    inputSchema: { type: "object" },
  }]);
  assert.deepEqual(Object.keys(ext.tools), ["__proto__"]);
  assert.match(stableJson(ext), /"__proto__"/);
  assert.equal(canonicalJson(JSON.parse('{"__proto__":{"a":1}}')), '{"__proto__":{"a":1}}');
});

Deno.test("names from a tampered lock are escaped in messages", () => {
  const lock = (id: string, ev: unknown) =>
    JSON.stringify({ lockfileVersion: 2, evals: { [id]: ev } });
  const bad = "x\u001b[2J\r\n\u202e";
  for (
    const text of [
      lock(bad, 1),
      lock("app/r", { ...EMPTY_EVAL, tools: { [bad]: { description: 1 } } }),
      lock("app/r", {
        ...EMPTY_EVAL,
        extensions: { [bad]: { declaration: 1, programs: {}, tools: {} } },
      }),
    ]
  ) {
    assert.throws(() => parseLockFile(text), (e: unknown) => {
      assert.ok(e instanceof LockMismatch);
      assert.ok(!hasUnsafe(e.message));
      assert.match(e.message, /x\\u\{1b\}\[2J\\u\{d\}\\u\{a\}\\u\{202e\}/);
      return true;
    });
  }
  const line = describeDrift({
    kind: "tool",
    name: `t${bad}`,
    field: "executionPaths",
    change: "changed",
    path: `p${bad}`,
    evalId: `e${bad}`,
  });
  assert.ok(!hasUnsafe(line));
});

Deno.test({
  name: "a FIFO or a symlink at toolhost.lock is an error naming the file, never a hang",
  ignore: Deno.build.os === "windows",
  async fn() {
    const root = await Deno.makeTempDir({ prefix: "toolhost-lockfifo-" });
    try {
      const path = join(root, "toolhost.lock");
      const made = await new Deno.Command("mkfifo", { args: [path] }).output();
      assert.ok(made.success);
      await assert.rejects(readLockFile({ root }), (e: unknown) => {
        assert.ok(e instanceof LockMismatch);
        assert.equal(e.message, "toolhost.lock must be a regular file");
        return true;
      });
      await Deno.remove(path);
      await Deno.writeTextFile(join(root, "real.lock"), '{"evals":{},"lockfileVersion":2}');
      await Deno.symlink(join(root, "real.lock"), path);
      await assert.rejects(readLockFile({ root }), /toolhost\.lock must be a regular file/);
      await Deno.remove(path);
      assert.equal(await readLockFile({ root }), undefined);
      await Deno.rename(join(root, "real.lock"), path);
      assert.deepEqual((await readLockFile({ root }))?.evals, {});
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("a lock over 8 MiB is refused before it is read", async () => {
  const root = await Deno.makeTempDir({ prefix: "toolhost-lockbig-" });
  try {
    const f = await Deno.create(join(root, "toolhost.lock"));
    await f.truncate(8 * 1024 * 1024 + 1);
    f.close();
    await assert.rejects(
      readLockFile({ root }),
      /toolhost\.lock is 8388609 bytes; .*capped at 8 MiB/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a tampered lock nested 100000 deep is a LockMismatch naming where, not a crash", () => {
  // Declarations are free-form objects that the registry canonicalizes recursively: a
  // deep value used to end `tools call`, `serve` and `Registry.open` with an internal
  // "Maximum call stack size exceeded" instead of the lock's own error.
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  const ev = JSON.stringify({ ...EMPTY_EVAL, declaration: { x: 1 } }).replace("1", deep);
  const text = `{"evals":{"app/r":${ev}},"lockfileVersion":2}`;
  assert.throws(() => parseLockFile(text), (e: unknown) => {
    assert.ok(e instanceof LockMismatch, String(e));
    assert.match(e.message, /toolhost\.lock: .*nested deeper than/);
    return true;
  });
  // What toolhost writes stays readable: deep but bounded declarations still parse.
  const ok = JSON.stringify({ ...EMPTY_EVAL, declaration: { x: 1 } })
    .replace("1", "[".repeat(200) + "]".repeat(200));
  parseLockFile(`{"evals":{"app/r":${ok}},"lockfileVersion":2}`);
});
