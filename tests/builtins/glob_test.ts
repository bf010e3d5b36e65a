import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Buffer } from "node:buffer";
import { runBuiltin } from "../../lib/builtins/run.ts";
import { runGlob } from "../../lib/builtins/glob.ts";
import { compileGlob, PatternError, validateGlobPattern } from "../../lib/glob/pattern.ts";
import { compileSegment } from "../../lib/glob/segment.ts";
import { decl, env, err, fileView, folderView, makeTree, noPhysical, ok } from "./helpers.ts";

Deno.test("segments: * ? [..] and fast paths", () => {
  const m = (p: string, n: string) => compileSegment(p)(n);
  assert.ok(m("*.ts", "a.ts") && m("*.ts", ".ts") && !m("*.ts", "a.tsx"));
  assert.ok(m("a*", "abc") && !m("a*", "ba"));
  assert.ok(m("*mid*", "xmidy") && !m("*mid*", "mi"));
  assert.ok(m("*", ".hidden"));
  assert.ok(m("f?o", "foo") && !m("f?o", "fo") && m("f?o", "f\u00e9o") && m("?", "\u{1F600}"));
  assert.ok(m("[abc]x", "bx") && !m("[abc]x", "dx"));
  assert.ok(m("[a-c]", "b") && !m("[a-c]", "d") && m("[!a-c]", "d") && m("[^a-c]", "d"));
  assert.ok(m("[]]", "]") && m("[", "[") && m("a[b", "a[b"));
  assert.ok(m("*a*b*c", "xxaxxbxxc") && !m("*a*b*c", "xxaxxbxx"));
  assert.ok(m("literal", "literal") && !m("literal", "Literal"));
  // No backtracking blow-up on hostile segments.
  const hostile = compileSegment("*a".repeat(100) + "b");
  assert.equal(hostile("a".repeat(255)), false);
});

Deno.test("paths: ** spans folders, trailing ** needs a component", () => {
  const g = compileGlob("**/*.md");
  assert.ok(g.matchesPath("a.md") && g.matchesPath("x/y/z.md") && !g.matchesPath("a.mdx"));
  const s = compileGlob("src/**");
  assert.ok(s.matchesPath("src/a") && s.matchesPath("src/x/y") && !s.matchesPath("src"));
  const mid = compileGlob("a/**/b/*.ts");
  assert.ok(
    mid.matchesPath("a/b/x.ts") && mid.matchesPath("a/1/2/b/x.ts") && !mid.matchesPath("a/x.ts"),
  );
  const top = compileGlob("*.ts");
  assert.ok(top.matchesPath("a.ts") && !top.matchesPath("d/a.ts") && top.basenameOnly);
  // Pruning: nothing below `lib` can match `src/**`.
  assert.deepEqual(s.step(s.start, "lib"), []);
  assert.notDeepEqual(s.step(s.start, "src"), []);
});

Deno.test("pattern validation: every rule and the 4096 boundary", () => {
  const bad = (p: unknown, re: RegExp) =>
    assert.throws(() => validateGlobPattern(p), (e: unknown) => {
      assert.ok(e instanceof PatternError);
      assert.equal(e.code, "INVALID_ARGUMENTS");
      assert.match(e.message, re);
      return true;
    });
  bad("", /empty/);
  bad("/etc/*", /relative/);
  bad("a\\b", /backslash/);
  bad("c:*", /colon/);
  bad("a\0", /NUL/);
  bad("a//b", /empty path component/);
  bad("a/", /empty path component/);
  bad("./a", /`\.`/);
  bad("a/../b", /`\.\.`/);
  bad("..", /`\.\.`/);
  bad(7, /string/);
  assert.equal(validateGlobPattern("*".repeat(4096)).length, 1);
  bad("*".repeat(4097), /4096/);
  assert.equal(validateGlobPattern("a/".repeat(2047) + "bc").length, 2048);
});

Deno.test("glob selects files by name, skips symlinks and never descends symlinked folders", async () => {
  const t = makeTree({
    "root/a.md": "a",
    "root/bin.md": new Uint8Array([0, 1, 2, 255]),
    "root/.hidden.md": "h",
    "root/d/b.md": "b",
    "root/d/e/c.md": "c",
    "root/d/x.txt": "x",
    "root/link.md": { symlink: "a.md" },
    "root/linkdir": { symlink: "d" },
    "root/escape": { symlink: "../outside" },
    "outside/o.md": "o",
  });
  try {
    const root = path.join(t.root, "root");
    const e = env(folderView("app", root));
    const r = await runBuiltin(decl("glob"), { pattern: "**/*.md" }, e);
    const d = ok(r);
    assert.deepEqual(d.files, [".hidden.md", "a.md", "bin.md", "d/b.md", "d/e/c.md"]);
    assert.deepEqual([d.artifactId, d.resolvedArtifactId, d.path, d.truncated], [
      "app",
      "app",
      ".",
      false,
    ]);
    noPhysical(r, t.root);
    const sub = ok(await runBuiltin(decl("glob"), { pattern: "*.md", path: "d" }, e));
    assert.deepEqual([sub.files, sub.path], [["d/b.md"], "d"]);
    assert.deepEqual(ok(await runBuiltin(decl("glob"), { pattern: "*", path: "." }, e)).files, [
      ".hidden.md",
      "a.md",
      "bin.md",
    ]);
    assert.match(
      err(await runBuiltin(decl("glob"), { pattern: "*", path: "a.md" }, e)),
      /not a folder/,
    );
    assert.match(
      err(await runBuiltin(decl("glob"), { pattern: "*", path: "linkdir" }, e)),
      /symlink/,
    );
    assert.match(err(await runBuiltin(decl("glob"), { pattern: "../*" }, e)), /`\.\.`/);
  } finally {
    t.rm();
  }
});

Deno.test("file Artifact virtual root and descendant admission", async () => {
  const t = makeTree({
    "docs/notes.md": "n",
    "docs/other.md": "o",
    "app/rules/r.md": "r",
    "app/x.md": "x",
  });
  try {
    const fe = env(fileView("notes", path.join(t.root, "docs/notes.md")));
    assert.deepEqual(ok(await runBuiltin(decl("glob"), { pattern: "*.md" }, fe)).files, [
      "notes.md",
    ]);
    assert.deepEqual(
      ok(await runBuiltin(decl("glob"), { pattern: "o*", path: "." }, fe)).files,
      [],
    );
    const app = folderView("app", path.join(t.root, "app"));
    const spec = folderView("spec", path.join(t.root, "app/rules"));
    const admitted = env(app, { rules: { view: spec, admitted: true } });
    assert.deepEqual(ok(await runBuiltin(decl("glob"), { pattern: "**/*.md" }, admitted)).files, [
      "rules/r.md",
      "x.md",
    ]);
    const refused = env(app, { rules: { view: spec, admitted: false } });
    assert.deepEqual(ok(await runBuiltin(decl("glob"), { pattern: "**/*.md" }, refused)).files, [
      "x.md",
    ]);
    const inside = ok(await runBuiltin(decl("glob"), { pattern: "*", path: "rules" }, admitted));
    assert.deepEqual([inside.resolvedArtifactId, inside.files], ["spec", ["rules/r.md"]]);
  } finally {
    t.rm();
  }
});

function fill(dir: string, n: number): void {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(dir, `f${i}`), "");
}

Deno.test("traversal bounds: 10,000 entries complete, 10,001 truncate, a 10,001-entry folder fails", async () => {
  const t = makeTree({});
  try {
    const e = env(folderView("app", t.root));
    fill(path.join(t.root, "a"), 5_000);
    fill(path.join(t.root, "b"), 4_998); // + folders a and b = 10,000 entries
    const at = ok(await runBuiltin(decl("glob"), { pattern: "**" }, e));
    assert.deepEqual([at.files.length, at.truncated], [9_998, false]);
    fs.writeFileSync(path.join(t.root, "b", "extra"), "");
    const over = ok(await runBuiltin(decl("glob"), { pattern: "**" }, e));
    assert.equal(over.truncated, true);
    assert.equal(over.files.length, 9_998);
    fill(path.join(t.root, "c"), 10_001);
    assert.match(
      err(await runBuiltin(decl("glob"), { pattern: "*", path: "c" }, e)),
      /`c` has more than 10,000 entries/,
    );
    assert.match(err(await runBuiltin(decl("glob"), { pattern: "c/*" }, e)), /more than 10,000/);
    // A pruned folder is never read.
    assert.equal(ok(await runBuiltin(decl("glob"), { pattern: "a/f1" }, e)).files.length, 1);
  } finally {
    t.rm();
  }
});

Deno.test("the result is cut at 512 KiB (truncated)", async () => {
  const t = makeTree({});
  try {
    const dir = path.join(t.root, "d");
    fs.mkdirSync(dir);
    for (let i = 0; i < 2_500; i++) {
      fs.writeFileSync(path.join(dir, `${i}`.padStart(5, "0").padEnd(240, "n")), "");
    }
    const e = env(folderView("app", t.root));
    const d = ok(await runBuiltin(decl("glob"), { pattern: "**" }, e));
    assert.equal(d.truncated, true);
    const size = Buffer.byteLength(JSON.stringify(d));
    assert.ok(size <= 512 * 1024 && size > 500 * 1024, String(size));
    const small = ok(await runGlob({ pattern: "**" }, e, { maxResultBytes: 2048 }));
    assert.ok(Buffer.byteLength(JSON.stringify(small)) <= 2048);
    assert.equal(small.truncated, true);
  } finally {
    t.rm();
  }
});
