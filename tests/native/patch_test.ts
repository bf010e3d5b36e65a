import assert from "node:assert/strict";
import fs from "node:fs";
import { runFilesPatch } from "../../lib/native/patch.ts";
import { parseUnifiedDiff } from "../../lib/native/patch_parse.ts";
import { appTree, call, err, type Json, ok, snapshot } from "./_helpers.ts";

function diff(path: string, hunk: string): string {
  return `--- a/${path}\n+++ b/${path}\n${hunk}`;
}

const THREE = {
  "a.txt": "a1\na2\na3\n",
  "b.txt": "b1\nb2\nb3\n",
  "c.txt": "c1\nc2\nc3\n",
};

Deno.test("files_patch: modify, create and delete in one patch", async () => {
  const t = appTree({ "a.txt": "one\ntwo\nthree\n", "gone.txt": "bye\n" });
  try {
    const patch = diff("a.txt", "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n") +
      "--- /dev/null\n+++ b/new/dir/n.txt\n@@ -0,0 +1,2 @@\n+fresh\n+file\n" +
      "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n";
    const r: Json = ok(await call("files_patch", { patch }, t.e));
    assert.deepEqual(r.files.map((f: Json) => `${f.path}:${f.action}`), [
      "a.txt:modified",
      "new/dir/n.txt:created",
      "gone.txt:deleted",
    ]);
    assert.equal(fs.readFileSync(`${t.app}/a.txt`, "utf8"), "one\nTWO\nthree\n");
    assert.equal(fs.readFileSync(`${t.app}/new/dir/n.txt`, "utf8"), "fresh\nfile\n");
    assert.ok(!fs.existsSync(`${t.app}/gone.txt`));
    assert.deepEqual(fs.readdirSync(t.app).filter((n) => n.startsWith(".toolhost-")), []);
  } finally {
    t.rm();
  }
});

Deno.test("files_patch: a patch failing on its third file leaves the first two untouched", async () => {
  const t = appTree(THREE);
  try {
    const before = snapshot(t.app);
    const patch = diff("a.txt", "@@ -2 +2 @@\n-a2\n+A2\n") +
      diff("b.txt", "@@ -2 +2 @@\n-b2\n+B2\n") +
      diff("c.txt", "@@ -2 +2 @@\n-NOT THERE\n+C2\n");
    const e = err(await call("files_patch", { patch }, t.e));
    assert.match(e, /no file changed\): file 3 of 3 \(`c.txt`\): hunk 1 does not apply/);
    assert.ok(!e.includes("NOT THERE"), "no content in messages");
    assert.deepEqual(snapshot(t.app), before, "every file as it was (content and inode)");
  } finally {
    t.rm();
  }
});

Deno.test("files_patch: a failure midway through the commit restores every file", async () => {
  const t = appTree(THREE);
  try {
    const before = snapshot(t.app);
    const patch = diff("a.txt", "@@ -1 +1 @@\n-a1\n+A1\n") +
      "--- /dev/null\n+++ b/made/new.txt\n@@ -0,0 +1 @@\n+new\n" +
      diff("c.txt", "@@ -1 +1 @@\n-c1\n+C1\n");
    let seen = -1;
    const hooks = {
      beforeCommit(i: number) {
        seen = i;
        if (i === 2) throw new Error("simulated rename failure");
      },
    };
    await assert.rejects(runFilesPatch({ patch }, t.e, hooks), /every file was restored/);
    assert.equal(seen, 2, "files 1 and 2 were committed before the failure");
    assert.deepEqual(
      snapshot(t.app),
      before,
      "contents, inodes, no new file, no created folder, no temp",
    );
  } finally {
    t.rm();
  }
});

Deno.test("files_patch: hunks apply at an offset but never with wrong context", async () => {
  const t = appTree({ "f.txt": "x\ny\nkeep\nold\nend\n" });
  try {
    // The hunk says line 2, the context is really at line 3.
    ok(
      await call("files_patch", {
        patch: diff("f.txt", "@@ -2,3 +2,3 @@\n keep\n-old\n+new\n end\n"),
      }, t.e),
    );
    assert.equal(fs.readFileSync(`${t.app}/f.txt`, "utf8"), "x\ny\nkeep\nnew\nend\n");
    const e = err(
      await call(
        "files_patch",
        { patch: diff("f.txt", "@@ -3,2 +3,2 @@\n kept\n-new\n+newer\n") },
        t.e,
      ),
    );
    assert.match(e, /hunk 1 does not apply/);
  } finally {
    t.rm();
  }
});

Deno.test("files_patch: a hunk stating an absurd line number is searched within the file only", async () => {
  // The search for the nearest matching position walked outward one line at a time from
  // the stated line: @@ -99999999999999999999 @@ spun the event loop forever (a whole
  // server stalled by one 60-byte patch). Positions outside the file are never candidates.
  const t = appTree({ "f.txt": "a\nb\nc\n" });
  try {
    for (const start of ["99999999999999999999", "9007199254740991", "9".repeat(400)]) {
      const e = err(
        await call("files_patch", { patch: diff("f.txt", `@@ -${start} +1 @@\n-zzz\n+y\n`) }, t.e),
      );
      assert.match(e, /hunk 1 does not apply/);
    }
    // Nearest to the stated line still wins: from far below the end, the last match.
    fs.writeFileSync(`${t.app}/f.txt`, "k\nx\nk\nx\n");
    ok(await call("files_patch", { patch: diff("f.txt", "@@ -99999999999 +1 @@\n-k\n+K\n") }, t.e));
    assert.equal(fs.readFileSync(`${t.app}/f.txt`, "utf8"), "k\nx\nK\nx\n");
  } finally {
    t.rm();
  }
});

Deno.test("files_patch: no newline at end of file, both ways", async () => {
  const t = appTree({ "f.txt": "a\nb" });
  try {
    const patch = diff("f.txt", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
    ok(await call("files_patch", { patch }, t.e));
    assert.equal(fs.readFileSync(`${t.app}/f.txt`, "utf8"), "a\nb\n");
  } finally {
    t.rm();
  }
});

Deno.test("files_patch: refused inputs change nothing", async () => {
  const t = appTree({ "a.txt": "a\n", "b.txt": "b\n" });
  try {
    const before = snapshot(t.app);
    const cases: [string, RegExp][] = [
      ["--- a/a.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-a\n+b\n", /renames are not supported/],
      [
        diff("a.txt", "@@ -1 +1 @@\n-a\n+x\n") + diff("a.txt", "@@ -1 +1 @@\n-x\n+y\n"),
        /names this file twice/,
      ],
      ["--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n", /creates it, but it exists/],
      [diff("missing.txt", "@@ -1 +1 @@\n-a\n+x\n"), /does not exist/],
      [diff("a.txt", "@@ -1,2 +1 @@\n-a\n"), /line counts do not match/],
      ["hello\n", /no file headers/],
      [diff("../b.txt", "@@ -1 +1 @@\n-b\n+x\n"), /file 1 of 1/],
    ];
    for (const [patch, re] of cases) {
      assert.match(err(await call("files_patch", { patch }, t.e)), re);
    }
    assert.deepEqual(snapshot(t.app), before);
  } finally {
    t.rm();
  }
});

Deno.test("unified diff parsing: git headers are skipped, prefixes and timestamps stripped", () => {
  const files = parseUnifiedDiff(
    "diff --git a/x.txt b/x.txt\nindex 1..2 100644\n--- a/x.txt\t2024-01-01\n+++ b/x.txt\t2024-01-02\n" +
      "@@ -1 +1 @@\n-a\n+b\n",
  );
  assert.deepEqual(files.map((f) => [f.path, f.action, f.hunks.length]), [["x.txt", "modify", 1]]);
});

Deno.test("unified diff parsing: trailing blanks of a header path go, inner blank runs stay", () => {
  // Trimmed with trimEnd (the same characters as /\s+$/, which backtracked quadratically
  // over a long inner run of blanks: 40,000 of them took 0.9 s per header line).
  const inner = `a${" ".repeat(60_000)}b.txt`;
  const [fp] = parseUnifiedDiff(`--- a/${inner} \t\n+++ b/${inner}  \n@@ -1 +1 @@\n-x\n+y\n`);
  assert.equal(fp.path, inner);
  const [g] = parseUnifiedDiff("--- a/f.txt\u00a0 \n+++ b/f.txt \u00a0\n@@ -1 +1 @@\n-x\n+y\n");
  assert.equal(g.path, "f.txt");
});
