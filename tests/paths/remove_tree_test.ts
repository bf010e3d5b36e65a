/**
 * removeTreeNoFollow: any depth on a bounded stack, never following a symlink, locked
 * folders unlocked on the way, entry budget.
 */

import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  MAX_REMOVE_DEPTH,
  removeTreeNoFollow,
  removeTreeNoFollowSync,
} from "../../lib/paths/remove_tree.ts";
import { CleanupFailed } from "../../lib/errors/errors.ts";

function scratch(): string {
  return mkdtempSync(join(tmpdir(), "remove-tree-"));
}

Deno.test("removeTreeNoFollow: a tree deeper than its stack is removed, files at every level", async () => {
  const base = scratch();
  const tree = join(base, "t");
  const levels = [tree];
  for (let i = 0; i < MAX_REMOVE_DEPTH * 3 + 5; i++) {
    levels.push(join(levels[levels.length - 1], i % 2 === 0 ? "a" : "bb"));
  }
  mkdirSync(levels[levels.length - 1], { recursive: true });
  levels.forEach((d, i) => {
    writeFileSync(join(d, "f"), "x");
    if (i % 7 === 0) mkdirSync(join(d, "side"));
  });
  await removeTreeNoFollow(tree);
  assert.deepEqual(readdirSync(base), []);
  await removeTreeNoFollow(base);
});

Deno.test("removeTreeNoFollow: a symlink in the tree or at its top is removed, never followed", async () => {
  const base = scratch();
  const outside = join(base, "outside");
  mkdirSync(join(outside, "keep"), { recursive: true });
  writeFileSync(join(outside, "keep", "f"), "precious");
  const tree = join(base, "t");
  mkdirSync(join(tree, "x"), { recursive: true });
  symlinkSync(outside, join(tree, "x", "link"));
  symlinkSync(join(outside, "keep", "f"), join(tree, "file-link"));
  await removeTreeNoFollow(tree);
  assert.ok(!existsSync(tree));
  symlinkSync(outside, join(base, "top-link"));
  await removeTreeNoFollow(join(base, "top-link"));
  assert.ok(!existsSync(join(base, "top-link")));
  assert.ok(existsSync(join(outside, "keep", "f")));
  await removeTreeNoFollow(base);
});

Deno.test("removeTreeNoFollow: folders a tool locked are unlocked and removed", async () => {
  const base = scratch();
  const tree = join(base, "t");
  mkdirSync(join(tree, "a", "b"), { recursive: true });
  writeFileSync(join(tree, "a", "b", "f"), "x");
  chmodSync(join(tree, "a", "b"), 0o000);
  chmodSync(join(tree, "a"), 0o500);
  await removeTreeNoFollow(tree);
  assert.ok(!existsSync(tree));
  await removeTreeNoFollow(base);
});

Deno.test("removeTreeNoFollow: past its entry budget it rejects, typed and path-free", async () => {
  const base = scratch();
  const tree = join(base, "t");
  mkdirSync(tree);
  for (let i = 0; i < 20; i++) writeFileSync(join(tree, `f${i}`), "x");
  const e = await removeTreeNoFollow(tree, { maxEntries: 5 }).catch((e) => e);
  assert.ok(e instanceof CleanupFailed);
  assert.ok(!String(e.message).includes(base));
  await removeTreeNoFollow(base);
  assert.ok(!existsSync(base));
});

Deno.test("removeTreeNoFollow: past its time budget it rejects, typed and path-free; sync too", async () => {
  const base = scratch();
  const tree = join(base, "t");
  mkdirSync(tree);
  for (let i = 0; i < 300; i++) writeFileSync(join(tree, `f${i}`), "x");
  const e = await removeTreeNoFollow(tree, { maxMs: 0 }).catch((e) => e);
  assert.ok(e instanceof CleanupFailed, String(e));
  assert.match(e.message, /took too long/);
  assert.ok(!String(e.message).includes(base));
  assert.ok(existsSync(tree), "the walk stopped before the tree was gone");
  assert.throws(() => removeTreeNoFollowSync(tree, { maxMs: 0 }), CleanupFailed);
  await removeTreeNoFollow(base);
  assert.ok(!existsSync(base));
});

Deno.test("removeTreeNoFollow: nothing there resolves", async () => {
  await removeTreeNoFollow(join(scratch(), "missing"));
});

Deno.test("removeTreeNoFollowSync: the same walk, synchronously (exit-time cleanup)", () => {
  const base = scratch();
  const levels = [join(base, "t")];
  for (let i = 0; i < MAX_REMOVE_DEPTH + 10; i++) levels.push(join(levels[i], "a"));
  mkdirSync(levels[levels.length - 1], { recursive: true });
  symlinkSync(base, join(levels[3], "up"));
  writeFileSync(join(levels[levels.length - 1], "f"), "x");
  removeTreeNoFollowSync(base);
  assert.ok(!existsSync(base));
});
