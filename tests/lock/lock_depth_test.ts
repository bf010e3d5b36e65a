/**
 * `toolhost lock` never writes a lock its own reader refuses: the reader takes at most
 * 1,000 levels of nesting (deeper is LOCK_MISMATCH), and the writer refuses the same,
 * with PREPARATION_FAILED naming the eval and where, and leaves no file behind.
 *
 * @module
 */

import assert from "node:assert/strict";
import { PreparationFailed } from "../../lib/errors/errors.ts";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { LockMismatch } from "../../lib/lock/errors.ts";
import {
  LOCK_VERSION,
  type LockFile,
  MAX_LOCK_DEPTH,
  readLockFile,
  writeLockFile,
} from "../../lib/lock/lock_file.ts";
import { tooDeepAt } from "../../lib/lock/lock_depth.ts";
import { definePlugin } from "../../lib/plugins/mod.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { BASE_FILES, BASE_TOML, withWorkspace } from "../helpers/workspace.ts";

const EMPTY_EVAL = { declaration: {}, programs: {}, tools: {}, sessions: {}, extensions: {} };

/** A value nesting `levels` levels of arrays (`[]` is 1). */
function nested(levels: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
}

/** A lock whose eval declaration holds a value, so the whole file nests `total` levels. */
function lockNesting(total: number): LockFile {
  // file → evals → "app/review" → declaration → x: four levels before x.
  const declaration = { x: nested(total - 4) };
  const lock = {
    lockfileVersion: LOCK_VERSION,
    evals: { "app/review": { ...EMPTY_EVAL, declaration } },
  };
  return lock as LockFile;
}

function entries(root: string): string[] {
  return [...Deno.readDirSync(root)].map((e) => e.name).sort();
}

Deno.test("the lock writer and reader share one bound: 1,000 levels written and read, 1,001 neither", async () => {
  assert.equal(MAX_LOCK_DEPTH, 1000);
  assert.equal(tooDeepAt(lockNesting(1000)), undefined);
  assert.deepEqual(tooDeepAt(lockNesting(1001))?.slice(0, 4), [
    "evals",
    "app/review",
    "declaration",
    "x",
  ]);
  await withWorkspace(BASE_TOML, BASE_FILES, async (root) => {
    await writeLockFile({ root }, lockNesting(1000));
    assert.ok((await readLockFile({ root }))?.evals["app/review"]);
    Deno.removeSync(`${root}/toolhost.lock`);
    const before = entries(root);
    await assert.rejects(writeLockFile({ root }, lockNesting(1001)), (e: unknown) => {
      assert.ok(e instanceof PreparationFailed, String(e));
      assert.equal(e.code, "PREPARATION_FAILED");
      assert.match(
        e.message,
        /^the lock of eval `app\/review` would nest deeper than 1000 levels \(at declaration\.x\.0\.0\.0\.0\.…\), which toolhost refuses to read back; .*toolhost\.lock was not written$/,
      );
      return true;
    });
    assert.deepEqual(entries(root), before, "no lock and no temporary file left");
    // What the writer refuses, the reader refuses too (as a tampered lock).
    Deno.writeTextFileSync(`${root}/toolhost.lock`, JSON.stringify(lockNesting(1001)));
    await assert.rejects(readLockFile({ root }), LockMismatch);
  });
});

Deno.test("toolhost lock refuses a plugin configuration nested too deep for the lock", async () => {
  // A library plugin that takes any configuration: its table is pinned as written.
  const anything = definePlugin({ name: "anything", validateConfig() {}, setup() {} });
  const deep = `${"[".repeat(997)}1${"]".repeat(997)}`;
  const toml =
    `${BASE_TOML}\n[plugins]\nenable = ["anything"]\n\n[plugins.anything]\nx = ${deep}\n`;
  await withWorkspace(toml, BASE_FILES, async (root) => {
    const ws = await loadWorkspace(root, { plugins: [anything] });
    const lock = await buildLock(ws, { plugins: [anything], stateDir: `${root}/.state` });
    assert.notEqual(tooDeepAt(lock), undefined, "the built lock is deeper than the bound");
    await assert.rejects(
      writeLockFile(ws, lock),
      /eval `app\/review` would nest deeper than 1000 levels \(at declaration\.plugins\.configs\.anything\.x\.0\.…\)/,
    );
    assert.ok(!entries(root).includes("toolhost.lock"));
  });
});
