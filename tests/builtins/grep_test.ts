import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Buffer } from "node:buffer";
import { RE2JS } from "re2js";
import { runBuiltin } from "../../lib/builtins/run.ts";
import { runGrep } from "../../lib/builtins/grep.ts";
import {
  compiledRegexBytes,
  compileGrepPattern,
  MAX_COMPILED_REGEX_BYTES,
} from "../../lib/grep/regex.ts";
import { PatternError } from "../../lib/glob/pattern.ts";
import {
  decl,
  env,
  err,
  fileView,
  folderView,
  type Json,
  makeTree,
  noPhysical,
  ok,
} from "./helpers.ts";

const MIB = 1024 * 1024;

function grep(root: string, args: Record<string, unknown>) {
  return runBuiltin(decl("grep"), args, env(folderView("app", root)));
}

const where = (d: Json) => d.matches.map((m: Json) => `${m.path}:${m.line}:${m.text}`);

Deno.test("matches with 1-based line numbers, hidden files, no gitignore", async () => {
  const t = makeTree({
    "a.txt": "alpha\nbeta needle\ngamma\r\nneedle again\r\n",
    ".hidden/h.txt": "needle in hidden\n",
    ".gitignore": "*.log\n",
    "x.log": "ignored? needle\n",
    "d/e/deep.ts": "x\n\n\nfn needle_fn()",
  });
  try {
    const r = await grep(t.root, { pattern: "needle" });
    const d = ok(r);
    assert.deepEqual(where(d), [
      ".hidden/h.txt:1:needle in hidden",
      "a.txt:2:beta needle",
      "a.txt:4:needle again",
      "d/e/deep.ts:4:fn needle_fn()",
      "x.log:1:ignored? needle",
    ]);
    assert.deepEqual([d.artifactId, d.resolvedArtifactId, d.path, d.truncated], [
      "app",
      "app",
      ".",
      false,
    ]);
    noPhysical(r, t.root);
    const regex = ok(await grep(t.root, { pattern: "^[a-z]+\\r?$" }));
    assert.deepEqual(where(regex), ["a.txt:1:alpha", "a.txt:3:gamma", "d/e/deep.ts:1:x"]);
    const file = ok(await grep(t.root, { pattern: "a$", path: "a.txt" }));
    assert.deepEqual([where(file), file.path], [["a.txt:1:alpha"], "a.txt"]);
    const ci = ok(await grep(t.root, { pattern: "(?i)NEEDLE AGAIN" }));
    assert.deepEqual(where(ci), ["a.txt:4:needle again"]);
    const alt = ok(await grep(t.root, { pattern: "gamma|beta" }));
    assert.deepEqual(where(alt), ["a.txt:2:beta needle", "a.txt:3:gamma"]);
    const empty = ok(await grep(t.root, { pattern: "^$", path: "d" }));
    assert.deepEqual(where(empty), ["d/e/deep.ts:2:", "d/e/deep.ts:3:"]);
  } finally {
    t.rm();
  }
});

Deno.test("binary (NUL) and invalid UTF-8 files are skipped entirely", async () => {
  const t = makeTree({
    "bin.dat": Buffer.concat([Buffer.from("needle\n"), Buffer.from([0]), Buffer.from("needle\n")]),
    "latin1.txt": Buffer.concat([Buffer.from("needle caf"), Buffer.from([0xe9, 0x0a])]),
    "late-bad.txt": Buffer.concat([Buffer.from("needle\n".repeat(10)), Buffer.from([0xc3])]),
    "ok.txt": "needle caf\u00e9\n",
  });
  try {
    for (const pattern of ["needle", "need+le", "(?i)NEEDLE", "[n]eedle"]) {
      assert.deepEqual(where(ok(await grep(t.root, { pattern }))), ["ok.txt:1:needle caf\u00e9"]);
    }
  } finally {
    t.rm();
  }
});

Deno.test("case-insensitive literals still find Unicode folds (K, \u017f)", async () => {
  const t = makeTree({ "u.txt": "plain\n\u212aEY\n\u017fun\nkey\n" });
  try {
    assert.deepEqual(where(ok(await grep(t.root, { pattern: "(?i)key" }))), [
      "u.txt:2:\u212aEY",
      "u.txt:4:key",
    ]);
    assert.deepEqual(where(ok(await grep(t.root, { pattern: "(?i)sun" }))), ["u.txt:3:\u017fun"]);
    assert.deepEqual(where(ok(await grep(t.root, { pattern: "(?i)PLAIN" }))), ["u.txt:1:plain"]);
  } finally {
    t.rm();
  }
});

Deno.test("glob filter: relative paths, basenames for slash-free patterns and single files", async () => {
  const t = makeTree({
    "a.ts": "hit\n",
    "src/b.ts": "hit\n",
    "src/c.md": "hit\n",
    "src/x/d.ts": "hit\n",
  });
  try {
    const paths = async (args: Record<string, unknown>) =>
      ok(await grep(t.root, { pattern: "hit", ...args })).matches.map((m: Json) => m.path);
    assert.deepEqual(await paths({ glob: "*.ts" }), ["a.ts", "src/b.ts", "src/x/d.ts"]);
    assert.deepEqual(await paths({ glob: "src/*.ts" }), ["src/b.ts"]);
    assert.deepEqual(await paths({ glob: "src/**/*.ts" }), ["src/b.ts", "src/x/d.ts"]);
    assert.deepEqual(await paths({ glob: "*.ts", path: "src" }), ["src/b.ts", "src/x/d.ts"]);
    assert.deepEqual(await paths({ glob: "x/*", path: "src" }), ["src/x/d.ts"]);
    assert.deepEqual(await paths({ glob: "b.ts", path: "src/b.ts" }), ["src/b.ts"]);
    assert.deepEqual(await paths({ glob: "*.md", path: "src/b.ts" }), []);
    assert.match(err(await grep(t.root, { pattern: "hit", glob: "../*" })), /glob filter/);
    assert.match(err(await grep(t.root, { pattern: "hit", glob: "" })), /glob filter is empty/);
  } finally {
    t.rm();
  }
});

Deno.test("regex errors: empty, invalid, unsupported, oversized; messages omit the pattern", async () => {
  const t = makeTree({ "a.txt": "a\n" });
  try {
    for (
      const [pattern, re] of [
        ["", /empty/],
        ["(unclosed", /not a valid regular expression \(missing closing \)\)/],
        ["(a)\\1", /not a valid regular expression.*no backreferences/],
        ["(?=a)b", /not a valid/],
        ["(?<!a)b", /not a valid/],
        ["x**", /not a valid/],
        ["a".repeat(4097), /4096/],
        ["a{1000}".repeat(100), /2 MiB/],
        ["(?i)\\w{999}".repeat(20), /2 MiB/],
        ["\\pL{999}".repeat(400), /2 MiB/],
      ] as const
    ) {
      const msg = err(await grep(t.root, { pattern }));
      assert.match(msg, re);
      if (pattern.length > 3) {
        assert.ok(!msg.includes(pattern.slice(0, 6)) || pattern.startsWith("("));
      }
    }
    assert.throws(() => compileGrepPattern(""), PatternError);
  } finally {
    t.rm();
  }
});

Deno.test("compiled-size ceiling: the last size accepted, the first refused", () => {
  assert.equal(MAX_COMPILED_REGEX_BYTES, 2 * MIB);
  // Grow a pattern one literal at a time until it crosses the ceiling.
  const body = "[a-z]{1000}".repeat(43);
  let lo = 0;
  let hi = 2000;
  const size = (j: number) => compiledRegexBytes(RE2JS.compile(body + "x".repeat(j)));
  assert.ok(size(lo) <= MAX_COMPILED_REGEX_BYTES && size(hi) > MAX_COMPILED_REGEX_BYTES);
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (size(mid) <= MAX_COMPILED_REGEX_BYTES) lo = mid;
    else hi = mid;
  }
  assert.doesNotThrow(() => compileGrepPattern(body + "x".repeat(lo)));
  assert.throws(() => compileGrepPattern(body + "x".repeat(hi)), /2 MiB/);
});

Deno.test("linear time: a pathological pattern over a long line does not stall", async () => {
  const t = makeTree({ "evil.txt": "a".repeat(200_000) + "b\n" + "aaaa\n" });
  try {
    const d = ok(await grep(t.root, { pattern: "(a+)+$" }));
    assert.deepEqual(d.matches.map((m: Json) => m.line), [2]);
    const d2 = ok(await grep(t.root, { pattern: "(a|aa)+c" }));
    assert.deepEqual(d2.matches, []);
  } finally {
    t.rm();
  }
});

Deno.test("8 MiB per file: at the limit searched, one byte over skipped (truncated)", async () => {
  const line = "y".repeat(1023) + "\n";
  const at = Buffer.alloc(8 * MIB, line);
  at.write("needle", 8 * MIB - 1024);
  const t = makeTree({ "at.txt": at, "small.txt": "needle\n" });
  try {
    const d = ok(await grep(t.root, { pattern: "needle" }));
    assert.deepEqual([where(d).length, d.truncated], [2, false]);
    assert.equal(d.matches[0].line, 8 * 1024);
    fs.appendFileSync(path.join(t.root, "at.txt"), "z");
    const over = ok(await grep(t.root, { pattern: "needle" }));
    assert.deepEqual([where(over), over.truncated], [["small.txt:1:needle"], true]);
    // Below the limit, too.
    fs.truncateSync(path.join(t.root, "at.txt"), 8 * MIB - 1);
    assert.equal(ok(await grep(t.root, { pattern: "needle" })).truncated, false);
  } finally {
    t.rm();
  }
});

Deno.test("64 MiB searched: exactly 64 MiB complete, more truncates", async () => {
  const t = makeTree({});
  try {
    const chunk = Buffer.alloc(8 * MIB, "abcdefg\n");
    for (let i = 0; i < 8; i++) fs.writeFileSync(path.join(t.root, `f${i}.txt`), chunk);
    // The last file ends with the needle; the eight files total exactly 64 MiB.
    fs.writeFileSync(
      path.join(t.root, "f7.txt"),
      Buffer.concat([chunk.subarray(7), Buffer.from("needle\n")]),
    );
    const at = ok(await grep(t.root, { pattern: "needle" }));
    assert.deepEqual([at.matches.length, at.truncated], [1, false]);
    fs.writeFileSync(path.join(t.root, "f8.txt"), "needle\n");
    const over = ok(await grep(t.root, { pattern: "needle" }));
    assert.deepEqual([over.matches.map((m: Json) => m.path), over.truncated], [["f7.txt"], true]);
    // Lifting the bounds (benchmark option) searches everything.
    const lifted = ok(
      await runGrep({ pattern: "needle" }, env(folderView("app", t.root)), { maxTotalBytes: 1e12 }),
    );
    assert.deepEqual([lifted.matches.length, lifted.truncated], [2, false]);
  } finally {
    t.rm();
  }
});

Deno.test("512 KiB JSON result: matches stop before the cap (truncated)", async () => {
  const t = makeTree({ "m.txt": "match line\n".repeat(40_000) });
  try {
    const d = ok(await grep(t.root, { pattern: "match" }));
    assert.equal(d.truncated, true);
    const size = Buffer.byteLength(JSON.stringify(d));
    assert.ok(size <= 512 * 1024 && size > 511 * 1024, String(size));
    const small = ok(
      await runGrep({ pattern: "match" }, env(folderView("app", t.root)), { maxResultBytes: 1000 }),
    );
    assert.ok(Buffer.byteLength(JSON.stringify(small)) <= 1000);
    // Long lines are cut to 4096 characters in results.
    fs.writeFileSync(path.join(t.root, "m.txt"), "z".repeat(10_000) + "needle\n");
    const long = ok(await grep(t.root, { pattern: "needle" }));
    assert.equal(long.matches[0].text.length, 4096);
  } finally {
    t.rm();
  }
});

Deno.test("traversal bounds and admission", async () => {
  const t = makeTree({
    "app/rules/r.md": "needle\n",
    "app/x.md": "needle\n",
    "app/big": { dir: true },
  });
  try {
    const appDir = path.join(t.root, "app");
    const spec = folderView("spec", path.join(appDir, "rules"));
    const refused = env(folderView("app", appDir), { rules: { view: spec, admitted: false } });
    assert.deepEqual(
      ok(await runBuiltin(decl("grep"), { pattern: "needle" }, refused)).matches.map((m: Json) =>
        m.path
      ),
      ["x.md"],
    );
    assert.match(
      err(await runBuiltin(decl("grep"), { pattern: "needle", path: "rules" }, refused)),
      /not admit/,
    );
    const admitted = env(folderView("app", appDir), { rules: { view: spec, admitted: true } });
    const a = ok(await runBuiltin(decl("grep"), { pattern: "needle", path: "rules" }, admitted));
    assert.deepEqual([a.resolvedArtifactId, a.matches[0].path], ["spec", "rules/r.md"]);
    for (let i = 0; i < 9_997; i++) fs.writeFileSync(path.join(appDir, "big", `f${i}`), "");
    // rules, r.md, x.md, big + 9,996 files... = 10,000 entries exactly.
    fs.rmSync(path.join(appDir, "big", "f9996"));
    const at = ok(await runBuiltin(decl("grep"), { pattern: "needle" }, admitted));
    assert.equal(at.truncated, false);
    fs.writeFileSync(path.join(appDir, "big", "f9996"), "");
    assert.equal(
      ok(await runBuiltin(decl("grep"), { pattern: "needle" }, admitted)).truncated,
      true,
    );
    for (let i = 9_997; i < 10_001; i++) fs.writeFileSync(path.join(appDir, "big", `f${i}`), "");
    assert.match(
      err(await runBuiltin(decl("grep"), { pattern: "needle" }, admitted)),
      /more than 10,000/,
    );
  } finally {
    t.rm();
  }
});

Deno.test("a file Artifact's virtual root searches just its file", async () => {
  const t = makeTree({ "docs/notes.md": "needle\n", "docs/other.md": "needle\n" });
  try {
    const fe = env(fileView("notes", path.join(t.root, "docs/notes.md")));
    for (const args of [{}, { path: "." }, { path: "notes.md" }]) {
      const d = ok(await runBuiltin(decl("grep"), { pattern: "needle", ...args }, fe));
      assert.deepEqual(d.matches, [{ path: "notes.md", line: 1, text: "needle" }]);
    }
    assert.deepEqual(
      ok(await runBuiltin(decl("grep"), { pattern: "needle", glob: "*.txt" }, fe)).matches,
      [],
    );
  } finally {
    t.rm();
  }
});
