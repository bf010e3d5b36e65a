import assert from "node:assert/strict";
import fs from "node:fs";
import { execFileSync } from "node:child_process";
import { NATIVE_LIMITS } from "../../lib/native/limits.ts";
import { parsePorcelain } from "../../lib/native/git.ts";
import { admits, appTree, call, err, folderView, type Json, nativeEnv, ok } from "./_helpers.ts";

const HAS_GIT = (() => {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** A repository at the tree root with `app` (the Artifact), `app/priv` and `other`. */
function repo() {
  const t = appTree({ "a.txt": "a\n", "priv/p.txt": "p\n" });
  fs.writeFileSync(`${t.root}/other.txt`, "o\n");
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
      cwd: t.root,
      stdio: "pipe",
    });
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-qm", "init");
  return { ...t, git };
}

Deno.test({
  name: "git_status: entries relative to the Artifact, nothing outside it",
  ignore: !HAS_GIT,
  fn: async () => {
    const t = repo();
    try {
      fs.writeFileSync(`${t.app}/a.txt`, "changed\n");
      fs.writeFileSync(`${t.app}/new.txt`, "n\n");
      fs.writeFileSync(`${t.root}/other.txt`, "changed outside\n");
      fs.writeFileSync(`${t.app}/priv/p.txt`, "changed priv\n");
      const e = nativeEnv(folderView("app", t.app), t.state, {}, {
        priv: { view: folderView("priv", `${t.app}/priv`), admitted: false },
      });
      const r: Json = ok(await call("git_status", {}, e));
      assert.equal(r.branch, "main");
      assert.deepEqual(r.entries, [
        { path: "a.txt", index: " ", worktree: "M" },
        { path: "new.txt", index: "?", worktree: "?" },
      ]);
      const nu: Json = ok(await call("git_status", { untracked: false }, e));
      assert.deepEqual(nu.entries.map((x: Json) => x.path), ["a.txt"]);
    } finally {
      t.rm();
    }
  },
});

Deno.test({
  name: "git_diff: relative paths, staged, limited paths, bounded output",
  ignore: !HAS_GIT,
  fn: async () => {
    const t = repo();
    try {
      fs.writeFileSync(`${t.app}/a.txt`, "b\n");
      fs.writeFileSync(`${t.root}/other.txt`, "changed outside\n");
      const r = await call("git_diff", {}, t.e);
      const meta: Json = (r.content[0] as { data: Json }).data;
      const text = (r.content[1] as { text: string }).text;
      assert.equal(meta.empty, false);
      assert.match(text, /^diff --git a\/a\.txt b\/a\.txt/);
      assert.ok(!text.includes("other.txt"));
      const staged = await call("git_diff", { staged: true }, t.e);
      assert.equal((staged.content[0] as { data: Json }).data.empty, true);
      t.git("add", "app/a.txt");
      const s2 = await call("git_diff", { staged: true, paths: ["a.txt"] }, t.e);
      assert.match((s2.content[1] as { text: string }).text, /\+b/);
      assert.equal((await call("git_diff", { paths: ["../other.txt"] }, t.e)).isError, true);
      fs.writeFileSync(`${t.app}/a.txt`, "x".repeat(NATIVE_LIMITS.gitMaxOutputBytes + 10) + "\n");
      const big = await call("git_diff", {}, t.e);
      const bm: Json = (big.content[0] as { data: Json }).data;
      assert.equal(bm.truncated, true);
      assert.ok(bm.bytes <= NATIVE_LIMITS.gitMaxOutputBytes);
      assert.ok(
        admits("git_diff", { contextLines: 100 }) && !admits("git_diff", { contextLines: 101 }),
      );
    } finally {
      t.rm();
    }
  },
});

Deno.test({
  name: "git tools outside a repository give a clear error",
  ignore: !HAS_GIT,
  fn: async () => {
    const t = appTree({ "a.txt": "a\n" });
    try {
      assert.match(err(await call("git_status", {}, t.e)), /`app` is not inside a git repository/);
      assert.match(err(await call("git_diff", {}, t.e)), /`app` is not inside a git repository/);
    } finally {
      t.rm();
    }
  },
});

Deno.test("porcelain parsing: renames carry their origin, the prefix is stripped", () => {
  const out = parsePorcelain(
    "## main...origin/main\0R  app/new.txt\0app/old.txt\0?? app/x\0",
    "app/",
  );
  assert.deepEqual(out, {
    branch: "main...origin/main",
    entries: [
      { path: "new.txt", index: "R", worktree: " ", from: "old.txt" },
      { path: "x", index: "?", worktree: "?" },
    ],
  });
});
