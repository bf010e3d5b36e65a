/** removeSessionSubtree: strict ids, silent no-ops, never following symlinks out. */

import assert from "node:assert/strict";
import { removeSessionSubtree, SESSION_ID_PATTERN } from "../../lib/odek/mod.ts";

async function exists(p: string): Promise<boolean> {
  try {
    await Deno.lstat(p);
    return true;
  } catch {
    return false;
  }
}

async function tree() {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek_rm_" }));
  const root = `${dir}/artifacts`;
  await Deno.mkdir(`${dir}/outside/deep`, { recursive: true });
  await Deno.writeTextFile(`${dir}/outside/keep.txt`, "keep");
  await Deno.writeTextFile(`${dir}/outside/deep/keep2.txt`, "keep");
  await Deno.mkdir(`${root}/s1/a/b`, { recursive: true });
  await Deno.writeTextFile(`${root}/s1/a/b/f.txt`, "x");
  return { dir, root, cleanup: () => Deno.remove(dir, { recursive: true }) };
}

Deno.test("removes <root>/<id> with its content and keeps the root", async () => {
  const t = await tree();
  try {
    await removeSessionSubtree(t.root, "s1");
    assert.equal(await exists(`${t.root}/s1`), false);
    assert.equal(await exists(t.root), true);
  } finally {
    await t.cleanup();
  }
});

Deno.test("missing subtree and missing root are not errors", async () => {
  const t = await tree();
  try {
    await removeSessionSubtree(t.root, "nope");
    await removeSessionSubtree(`${t.dir}/no-root`, "s1");
    assert.equal(await exists(`${t.root}/s1`), true);
  } finally {
    await t.cleanup();
  }
});

Deno.test("invalid ids are silent no-ops", async () => {
  const t = await tree();
  try {
    await Deno.mkdir(`${t.root}/.hidden`);
    await Deno.mkdir(`${t.root}/-x`);
    for (
      const id of [
        "",
        ".",
        "..",
        "../outside",
        "s1/a",
        "s1/..",
        ".hidden",
        "-x",
        "a b",
        "a\0",
        "é",
        "a".repeat(129),
        "s1\n",
        "/",
        "a\\b",
      ]
    ) {
      await removeSessionSubtree(t.root, id);
    }
    await removeSessionSubtree(`${t.root}/s1/a`, "..");
    await removeSessionSubtree(t.root, 5 as unknown as string);
    for (const p of ["s1/a/b/f.txt", ".hidden", "-x"]) {
      assert.equal(await exists(`${t.root}/${p}`), true, p);
    }
    assert.equal(await exists(`${t.dir}/outside/keep.txt`), true);
  } finally {
    await t.cleanup();
  }
});

Deno.test("id charset boundaries: 128 characters ok, 129 rejected", async () => {
  const t = await tree();
  try {
    assert.ok(SESSION_ID_PATTERN.test("a".repeat(127)));
    assert.ok(SESSION_ID_PATTERN.test("a".repeat(128)));
    assert.ok(!SESSION_ID_PATTERN.test("a".repeat(129)));
    assert.ok(SESSION_ID_PATTERN.test("A0._-z"));
    for (const n of [128, 129]) {
      await Deno.mkdir(`${t.root}/${"b".repeat(n)}`);
      await removeSessionSubtree(t.root, "b".repeat(n));
      assert.equal(await exists(`${t.root}/${"b".repeat(n)}`), n === 129, String(n));
    }
  } finally {
    await t.cleanup();
  }
});

Deno.test("<root>/<id> as a symlink: only the link is removed", async () => {
  const t = await tree();
  try {
    await Deno.symlink(`${t.dir}/outside`, `${t.root}/s2`);
    await removeSessionSubtree(t.root, "s2");
    assert.equal(await exists(`${t.root}/s2`), false);
    assert.equal(await exists(`${t.dir}/outside/keep.txt`), true);
    assert.equal(await exists(`${t.dir}/outside/deep/keep2.txt`), true);
  } finally {
    await t.cleanup();
  }
});

Deno.test("symlinks inside the subtree are removed, never followed", async () => {
  const t = await tree();
  try {
    await Deno.symlink(`${t.dir}/outside`, `${t.root}/s1/dirlink`);
    await Deno.symlink(`${t.dir}/outside/keep.txt`, `${t.root}/s1/a/filelink`);
    await Deno.symlink(t.dir, `${t.root}/s1/a/b/uplink`);
    await removeSessionSubtree(t.root, "s1");
    assert.equal(await exists(`${t.root}/s1`), false);
    assert.equal(await Deno.readTextFile(`${t.dir}/outside/keep.txt`), "keep");
    assert.equal(await exists(`${t.dir}/outside/deep/keep2.txt`), true);
  } finally {
    await t.cleanup();
  }
});

Deno.test("a regular file at <root>/<id> is removed", async () => {
  const t = await tree();
  try {
    await Deno.writeTextFile(`${t.root}/s3`, "x");
    await removeSessionSubtree(t.root, "s3");
    assert.equal(await exists(`${t.root}/s3`), false);
  } finally {
    await t.cleanup();
  }
});
