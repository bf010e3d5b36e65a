/**
 * What the write tools refuse outright: git's control folder, other names (hard links) of
 * non-admitted Artifacts, and files with more than one hard link.
 */

import { showPath } from "../../lib/paths/show_path.ts";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {
  appTree,
  call,
  err,
  fileView,
  folderView,
  type Json,
  nativeEnv,
  ok,
  snapshot,
} from "./_helpers.ts";

function diff(p: string, hunk: string): string {
  return `--- a/${p}\n+++ b/${p}\n${hunk}`;
}

const GIT_SPELLINGS = [
  ".git/config",
  ".git/hooks/post-index-change",
  ".git",
  ".GIT/config",
  ".Git",
  "sub/.git",
  "sub/.git/config",
  "deep/er/.git/info/attributes",
  ".git./config",
  ".git /config",
  "GIT~1/config",
  ".g\u200cit/config",
  "\ufeff.git/config",
];

Deno.test("files_write refuses every path through .git, in any spelling that reaches it", async () => {
  const t = appTree({ ".git/config": "[core]\n", "sub/.git": "gitdir: ../.git\n", "a.txt": "a\n" });
  try {
    const before = snapshot(t.app);
    for (const p of GIT_SPELLINGS) {
      const m = err(await call("files_write", { path: p, content: "[filter]\n" }, t.e));
      assert.match(m, /inside git's control folder/, p);
      assert.ok(m.includes(showPath(p)), p); // quoted and escaped
    }
    assert.deepEqual(snapshot(t.app), before, "nothing was written or created");
  } finally {
    t.rm();
  }
});

Deno.test("files_edit and files_patch refuse .git too; a patch touching it changes nothing", async () => {
  const t = appTree({ ".git/config": "[core]\n\tbare = false\n", "a.txt": "a\n" });
  try {
    const before = snapshot(t.app);
    assert.match(
      err(
        await call(
          "files_edit",
          { path: ".git/config", oldText: "bare = false", newText: "fsmonitor = x" },
          t.e,
        ),
      ),
      /inside git's control folder/,
    );
    const patch = diff("a.txt", "@@ -1 +1 @@\n-a\n+b\n") +
      diff(".git/config", "@@ -1,2 +1,2 @@\n [core]\n-\tbare = false\n+\tfsmonitor = x\n") +
      "--- /dev/null\n+++ b/x/.GIT/hooks/pre-commit\n@@ -0,0 +1 @@\n+boom\n";
    const m = err(await call("files_patch", { patch }, t.e));
    assert.match(m, /no file changed/);
    assert.match(m, /inside git's control folder/);
    const create = "--- /dev/null\n+++ b/x/.GIT/hooks/pre-commit\n@@ -0,0 +1 @@\n+boom\n";
    assert.match(err(await call("files_patch", { patch: create }, t.e)), /control folder/);
    assert.deepEqual(snapshot(t.app), before);
  } finally {
    t.rm();
  }
});

Deno.test(".gitattributes, .gitignore, .gitmodules and look-alikes stay writable", async () => {
  const t = appTree();
  try {
    for (
      const p of [".gitattributes", ".gitignore", ".gitmodules", "x.git", ".github/ci.yml", "git"]
    ) {
      ok(await call("files_write", { path: p, content: "x\n" }, t.e));
    }
    ok(await call("files_edit", { path: ".gitattributes", oldText: "x", newText: "y" }, t.e));
    assert.equal(fs.readFileSync(`${t.app}/.gitattributes`, "utf8"), "y\n");
  } finally {
    t.rm();
  }
});

Deno.test("a file Artifact whose file is named .git is never rewritten", async () => {
  const t = appTree();
  try {
    const file = path.join(t.root, "w", ".git");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, "gitdir: elsewhere\n");
    const e = nativeEnv(fileView("gitlink", file), t.state);
    assert.match(
      err(await call("files_write", { path: ".git", content: "gitdir: /tmp/evil\n" }, e)),
      /inside git's control folder/,
    );
    assert.equal(fs.readFileSync(file, "utf8"), "gitdir: elsewhere\n");
  } finally {
    t.rm();
  }
});

/** The audit's layout: `shared` admitted, its file `private.txt` a non-admitted Artifact. */
function sharedWithPrivate() {
  const t = appTree();
  const shared = path.join(t.root, "shared");
  fs.mkdirSync(shared);
  const secret = path.join(shared, "private.txt");
  fs.writeFileSync(secret, "PRIV-SECRET token=42\n");
  fs.linkSync(secret, path.join(shared, "copy.txt"));
  const e = nativeEnv(folderView("shared", shared), t.state, {}, {
    "private.txt": { view: fileView("priv", secret), admitted: false },
  });
  return { ...t, shared, secret, e };
}

Deno.test("a hard link to a non-admitted file Artifact is refused by every writer (no oracle)", async () => {
  const t = sharedWithPrivate();
  try {
    const ino = fs.statSync(`${t.shared}/copy.txt`).ino;
    const before = snapshot(t.shared);
    const hit = err(
      await call("files_edit", { path: "copy.txt", oldText: "token=4", newText: "token=4" }, t.e),
    );
    const miss = err(
      await call("files_edit", { path: "copy.txt", oldText: "nope", newText: "nope" }, t.e),
    );
    assert.equal(hit, miss, "the answer does not depend on the content");
    assert.match(hit, /belongs to an Artifact this eval does not admit/);
    assert.ok(!hit.includes("occurs"));
    const patch = diff("copy.txt", "@@ -1 +1 @@\n-PRIV-SECRET token=42\n+x\n");
    assert.match(
      err(await call("files_patch", { patch }, t.e)),
      /belongs to an Artifact this eval does not admit/,
    );
    const del = "--- a/copy.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-PRIV-SECRET token=42\n";
    assert.match(err(await call("files_patch", { patch: del }, t.e)), /does not admit/);
    assert.match(
      err(await call("files_write", { path: "copy.txt", content: "x\n" }, t.e)),
      /does not admit/,
    );
    assert.equal(fs.statSync(`${t.shared}/copy.txt`).ino, ino, "no copy to a new inode");
    assert.deepEqual(snapshot(t.shared), before);
    assert.match(err(await call("files_read", { path: "copy.txt" }, t.e)), /does not admit/);
  } finally {
    t.rm();
  }
});

Deno.test("a file with other hard links is refused by every writer (folder Artifact)", async () => {
  const t = appTree({ "keep.txt": "k\n" });
  try {
    const outside = path.join(t.root, "outside.txt");
    fs.writeFileSync(outside, "outside\n");
    fs.linkSync(outside, `${t.app}/f.txt`);
    const before = snapshot(t.root, (r) => r.startsWith("state"));
    const msgs = [
      err(await call("files_write", { path: "f.txt", content: "changed\n" }, t.e)),
      err(await call("files_edit", { path: "f.txt", oldText: "outside", newText: "x" }, t.e)),
      err(
        await call("files_patch", {
          patch: diff("keep.txt", "@@ -1 +1 @@\n-k\n+K\n") +
            diff("f.txt", "@@ -1 +1 @@\n-outside\n+x\n"),
        }, t.e),
      ),
    ];
    for (const m of msgs) {
      assert.match(m, /`f\.txt` has other hard links/);
      assert.ok(!m.includes(t.root), m);
    }
    assert.deepEqual(snapshot(t.root, (r) => r.startsWith("state")), before);
    fs.rmSync(outside); // once it is the only name, writes work again
    ok(await call("files_edit", { path: "f.txt", oldText: "outside", newText: "inside" }, t.e));
    assert.equal(fs.readFileSync(`${t.app}/f.txt`, "utf8"), "inside\n");
  } finally {
    t.rm();
  }
});

Deno.test("a file Artifact with another hard link is never written through", async () => {
  const t = appTree();
  try {
    const file = path.join(t.root, "docs", "notes.md");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, "one\n");
    const elsewhere = path.join(t.root, "elsewhere.md");
    fs.linkSync(file, elsewhere);
    const e = nativeEnv(fileView("notes", file), t.state);
    assert.match(
      err(await call("files_write", { path: "notes.md", content: "two\n" }, e)),
      /has other hard links/,
    );
    assert.match(
      err(await call("files_edit", { path: "notes.md", oldText: "one", newText: "two" }, e)),
      /has other hard links/,
    );
    assert.match(
      err(await call("files_patch", { patch: diff("notes.md", "@@ -1 +1 @@\n-one\n+two\n") }, e)),
      /has other hard links/,
    );
    assert.equal(fs.readFileSync(elsewhere, "utf8"), "one\n");
    assert.equal(fs.readFileSync(file, "utf8"), "one\n");
    fs.rmSync(elsewhere);
    const r: Json = ok(await call("files_write", { path: "notes.md", content: "two\n" }, e));
    assert.equal(r.created, false);
  } finally {
    t.rm();
  }
});
