import assert from "node:assert/strict";
import { directoryDigest, pinPath } from "../../lib/pins/mod.ts";
import { rejectsPin, withWorkspace, writeTree } from "./_helpers.ts";

const EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/**
 * Golden value, computed outside toolhost with printf | sha256sum over the manifest
 * `<relpath>\0<f|l>\0<hex>\n` for: a.txt, b-x, b/c.txt, b/link (-> ../a.txt), b/sub/é.txt.
 */
const GOLDEN = "867ca772d5c8e7d8d21e3f6b779e0a95596917020857430d5f93ea58e7370cd0";

function goldenTree(root: string): void {
  writeTree(root, {
    "pkg/a.txt": "abc",
    "pkg/b-x": "x",
    "pkg/b/c.txt": "",
    "pkg/b/sub/é.txt": "café",
  });
  Deno.symlinkSync("../a.txt", `${root}/pkg/b/link`);
  Deno.mkdirSync(`${root}/pkg/b/empty/deeper`, { recursive: true });
  Deno.mkdirSync(`${root}/pkg/z-empty`);
}

Deno.test("pinPath: directory digest format is stable (golden value)", async () => {
  await withWorkspace(async (root) => {
    goldenTree(root);
    assert.equal(await pinPath(root, "pkg"), GOLDEN);
  });
});

Deno.test("directoryDigest: sorts by UTF-8 bytes of the relative path", () => {
  const d = (s: string) => s.padEnd(64, "0");
  const lines = [
    { rel: "b/c", kind: "f" as const, digest: d("1") },
    { rel: "b-c", kind: "f" as const, digest: d("2") }, // '-' (0x2d) sorts before '/' (0x2f)
    { rel: "B", kind: "l" as const, digest: d("3") },
  ];
  const forward = directoryDigest(lines);
  assert.equal(directoryDigest([...lines].reverse()), forward);
  assert.equal(directoryDigest([]), EMPTY);
});

Deno.test("pinPath: the digest does not depend on where the directory lives", async () => {
  await withWorkspace(async (root) => {
    goldenTree(root);
    Deno.mkdirSync(`${root}/deep/er`, { recursive: true });
    Deno.renameSync(`${root}/pkg`, `${root}/deep/er/pkg`);
    assert.equal(await pinPath(root, "deep/er/pkg"), GOLDEN);
  });
});

Deno.test("pinPath: empty directories contribute nothing", async () => {
  await withWorkspace(async (root) => {
    Deno.mkdirSync(`${root}/d/e/f`, { recursive: true });
    assert.equal(await pinPath(root, "d"), EMPTY);
    writeTree(root, { "d/x": "1" });
    const one = await pinPath(root, "d");
    Deno.mkdirSync(`${root}/d/more/empty`, { recursive: true });
    assert.equal(await pinPath(root, "d"), one);
  });
});

Deno.test("pinPath: renaming or editing a file changes the directory digest", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "d/x": "1", "d/y": "2" });
    const base = await pinPath(root, "d");
    writeTree(root, { "d/y": "3" });
    const edited = await pinPath(root, "d");
    assert.notEqual(edited, base);
    Deno.renameSync(`${root}/d/y`, `${root}/d/z`);
    assert.notEqual(await pinPath(root, "d"), edited);
  });
});

Deno.test("pinPath: a symlink inside contributes its target and is not followed", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "outside/a": "one", "outside/b": "one" });
    Deno.mkdirSync(`${root}/d`);
    Deno.symlinkSync("../outside/a", `${root}/d/link`);
    const base = await pinPath(root, "d");
    // Changing the target file's content does not change the digest.
    writeTree(root, { "outside/a": "two, longer" });
    assert.equal(await pinPath(root, "d"), base);
    // Changing the target string does (even to a file with equal content).
    Deno.removeSync(`${root}/d/link`);
    Deno.symlinkSync("../outside/b", `${root}/d/link`);
    assert.notEqual(await pinPath(root, "d"), base);
  });
});

Deno.test("pinPath: symlinks inside are never traversed (dangling, to dirs, to FIFOs)", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "big/f1": "x", "big/f2": "y", "big/f3": "z" });
    Deno.mkdirSync(`${root}/d`);
    Deno.symlinkSync("../big", `${root}/d/dirlink`);
    Deno.symlinkSync("nowhere", `${root}/d/dangling`);
    Deno.symlinkSync("/dev/null", `${root}/d/devlink`);
    Deno.symlinkSync(".", `${root}/d/self`);
    // 4 symlinks retained; the 3 files behind dirlink are not counted or hashed.
    assert.equal((await pinPath(root, "d", { maxEntries: 4 })).length, 64);
    await rejectsPin(pinPath(root, "d", { maxEntries: 3 }), { root, reason: /more than 3/ });
  });
});

Deno.test("pinPath: a file replaced by a symlink to an equal file changes the digest", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "d/a": "1" });
    const before = await pinPath(root, "d");
    Deno.removeSync(`${root}/d/a`);
    Deno.symlinkSync("b", `${root}/d/a`);
    writeTree(root, { "d/b": "1" });
    assert.notEqual(await pinPath(root, "d"), before);
  });
});
