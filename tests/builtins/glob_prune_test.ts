/**
 * Glob pruning and normalisation: folders nothing below can match are never read (so a
 * huge folder next to the matches neither eats the 10,000-entry bound nor fails the
 * call), runs of `**` collapse, and matching agrees with a direct reference matcher.
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { runBuiltin } from "../../lib/builtins/run.ts";
import { compileGlob, type GlobState } from "../../lib/glob/pattern.ts";
import { compileSegment } from "../../lib/glob/segment.ts";
import { decl, env, err, folderView, type Json, makeTree, ok } from "./helpers.ts";

function fill(dir: string, n: number): void {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(dir, `f${i}`), "");
}

Deno.test("glob never enters a folder nothing below can match (10,000-entry boundary)", async () => {
  const t = makeTree({ "a.txt": "a", "z.txt": "z", "d/x.txt": "x" });
  try {
    const e = env(folderView("app", t.root));
    const glob = async (pattern: string) =>
      await runBuiltin(decl("glob"), { pattern }, env(folderView("app", t.root)));
    fill(path.join(t.root, "big"), 10_000); // at the per-folder bound
    for (const pattern of ["*", "*.txt", "?.txt", "[az].txt"]) {
      const d = ok(await glob(pattern));
      assert.deepEqual([d.files, d.truncated], [["a.txt", "z.txt"], false], pattern);
    }
    assert.deepEqual(ok(await glob("d/*.txt")).files, ["d/x.txt"]);
    // `big` may hold `*/*.txt` matches, so it is read: its entries use up the walk's bound.
    assert.equal(ok(await glob("*/*.txt")).truncated, true);
    // The folder itself is readable (not an error), but its entries and the two before it
    // pass the traversal bound.
    const inBig = ok(await glob("big/*"));
    assert.deepEqual([inBig.files.length, inBig.truncated], [9_998, true]);
    fs.writeFileSync(path.join(t.root, "big", "f10000"), ""); // one over the per-folder bound
    for (const pattern of ["*", "*.txt", "d/*.txt", "d/*"]) {
      const d = ok(await runBuiltin(decl("glob"), { pattern }, e));
      assert.equal(d.truncated, false, pattern);
    }
    assert.deepEqual(ok(await glob("*")).files, ["a.txt", "z.txt"]);
    assert.match(err(await glob("big/*")), /`big` has more than 10,000 entries/);
    assert.match(err(await glob("*/*")), /more than 10,000/);
    assert.match(err(await glob("**/*.txt")), /more than 10,000/);
  } finally {
    t.rm();
  }
});

Deno.test("grep's glob filter with a `/` never enters a folder nothing below can match", async () => {
  const t = makeTree({ "d/x.txt": "needle\n", "d/y.md": "needle\n" });
  try {
    const e = env(folderView("app", t.root));
    fill(path.join(t.root, "d", "big"), 10_001);
    const d = ok(await runBuiltin(decl("grep"), { pattern: "needle", glob: "*/*" }, e));
    assert.deepEqual(d.matches.map((m: Json) => m.path), ["d/x.txt", "d/y.md"]);
    assert.equal(d.truncated, false);
    assert.match(
      err(await runBuiltin(decl("grep"), { pattern: "needle", glob: "*/*/*" }, e)),
      /more than 10,000/,
    );
  } finally {
    t.rm();
  }
});

Deno.test("step: a folder that matches the last segment is a dead end", () => {
  const walk = (p: string, folders: string[]): GlobState => {
    const g = compileGlob(p);
    let state: GlobState = g.start;
    for (const f of folders) state = g.step(state, f);
    return state;
  };
  assert.deepEqual(walk("*", ["big"]), []);
  assert.deepEqual(walk("*.txt", ["d.txt"]), []);
  assert.deepEqual(walk("a/*", ["a", "q"]), []);
  assert.deepEqual(walk("a/b", ["a", "b"]), []);
  assert.notDeepEqual(walk("a/*", ["a"]), []);
  assert.notDeepEqual(walk("**/x", ["x"]), []); // x/x can match
  assert.notDeepEqual(walk("src/**", ["src", "q"]), []);
});

Deno.test("runs of ** collapse: a 1,364-segment pattern has one ** state", () => {
  const p = "**/".repeat(1364) + "*";
  assert.equal(p.length, 4093);
  const g = compileGlob(p);
  assert.deepEqual(g.start, [0, 1]);
  let state: GlobState = g.start;
  for (let i = 0; i < 300; i++) state = g.step(state, `d${i}`);
  assert.deepEqual(state, [0, 1]);
  assert.ok(g.matchesPath("a") && g.matchesPath("a/b/c"));
  assert.deepEqual(compileGlob("a/**/**/b/**/**").start, [0]);
  assert.ok(compileGlob("a/**/**/b/**/**").matchesPath("a/b/c"));
  assert.ok(!compileGlob("a/**/**/b/**/**").matchesPath("a/b"));
});

Deno.test("a 4,093-character pattern of ** segments over 2,000 folders stays fast", async () => {
  const t = makeTree({});
  try {
    for (let i = 0; i < 40; i++) {
      for (let j = 0; j < 49; j++) {
        fs.mkdirSync(path.join(t.root, `d${i}`, `s${j}`), { recursive: true });
      }
      fs.writeFileSync(path.join(t.root, `d${i}`, "s0", "f.txt"), "needle\n");
    }
    const e = env(folderView("app", t.root));
    const p = "**/".repeat(1364) + "*";
    // Against the same walk with a plain `**/*` in the same run, not a clock: a loaded
    // machine slows both alike. Before collapsing, the long pattern took ~50× as long.
    const both = async (pattern: string) => {
      const t0 = performance.now();
      const g = ok(await runBuiltin(decl("glob"), { pattern }, e));
      const r = ok(await runBuiltin(decl("grep"), { pattern: "needle", glob: pattern }, e));
      return { g, r, ms: performance.now() - t0 };
    };
    const base = await both("**/*");
    const { g, r, ms } = await both(p);
    assert.equal(g.files.length, 40);
    assert.equal(r.matches.length, 40);
    assert.ok(ms < 8 * base.ms + 500, `${ms} ms (plain **/*: ${base.ms} ms)`);
  } finally {
    t.rm();
  }
});

/** Reference: the documented rules, straight from the definition (memoised recursion). */
function reference(pattern: string, rel: string): boolean {
  const segs = pattern.split("/");
  if (segs[segs.length - 1] === "**") segs.push("*"); // a trailing ** needs a component
  const parts = rel.split("/");
  const memo = new Map<string, boolean>();
  const go = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let out: boolean;
    if (i === segs.length) out = j === parts.length;
    else if (segs[i] === "**") out = go(i + 1, j) || (j < parts.length && go(i, j + 1));
    else out = j < parts.length && compileSegment(segs[i])(parts[j]) && go(i + 1, j + 1);
    memo.set(key, out);
    return out;
  };
  return go(0, 0);
}

Deno.test("matchesPath and step/matchesFile agree with the reference on generated globs", () => {
  let seed = 5;
  const r = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const segs = ["**", "**", "*", "a", "b", "?", "[ab]", "a*", "*b"];
  const names = ["a", "b", "ab", "ba", "c"];
  for (let n = 0; n < 3000; n++) {
    const pattern = Array.from({ length: 1 + Math.floor(r() * 5) }, () => pick(segs)).join("/");
    const g = compileGlob(pattern);
    for (let k = 0; k < 10; k++) {
      const parts = Array.from({ length: 1 + Math.floor(r() * 5) }, () => pick(names));
      const rel = parts.join("/");
      const want = reference(pattern, rel);
      assert.equal(g.matchesPath(rel), want, `${pattern} ${rel}`);
      // The walk's view: a dead (empty) state for a folder means no file below matches.
      let state: GlobState = g.start;
      for (const part of parts.slice(0, -1)) state = g.step(state, part);
      if (want) assert.ok(g.matchesFile(state, parts[parts.length - 1]), `${pattern} ${rel}`);
      for (let cut = 1; cut < parts.length; cut++) {
        let s: GlobState = g.start;
        for (const part of parts.slice(0, cut)) s = g.step(s, part);
        if (s.length === 0) assert.equal(want, false, `${pattern} ${rel} pruned at ${cut}`);
      }
    }
  }
});
