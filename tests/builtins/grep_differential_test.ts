/**
 * Differential tests of grep against re2js run directly on each line: generated patterns
 * (counted repetitions, alternations, classes, anchors, case-insensitive flags) over a
 * small corpus and over one large enough to span several search windows. Paused and
 * resumed searches are compared in grep_resume_test.ts.
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Buffer } from "node:buffer";
import { RE2JS } from "re2js";
import { runGrep } from "../../lib/builtins/grep.ts";
import { compileGrepPattern } from "../../lib/grep/regex.ts";
import { env, folderView, type Json, makeTree, ok } from "./helpers.ts";

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["o", "l", "foo", "ab", "hello", "K", "s", "\u00e9", "x", "world", "bar"];
const CLASSES = ["[ab]", "[^a]", "[a-f]", "\\d", "\\w", "\\s", ".", "[lo]", "[A-Z]"];
const COUNTS = ["", "", "", "{2}", "{3}", "{1,2}", "{0,2}", "{2,}", "*", "+", "?"];

function generator(seed: number): () => string {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const atom = (): string => {
    const k = r();
    if (k < 0.45) {
      const w = pick(WORDS);
      return w.length > 1 && r() < 0.5 ? `(?:${w})` : w;
    }
    if (k < 0.75) return pick(CLASSES);
    if (k < 0.9) return `(?:${pick(WORDS)}|${pick(WORDS)}${r() < 0.3 ? `|${pick(CLASSES)}` : ""})`;
    return `(?i:${pick(WORDS)})`;
  };
  return () => {
    let p = "";
    const n = 1 + Math.floor(r() * 3);
    for (let i = 0; i < n; i++) {
      if (r() < 0.1) p += "\\b";
      p += atom() + pick(COUNTS);
    }
    if (r() < 0.15) p = `^${p}`;
    if (r() < 0.15) p = `${p}$`;
    if (r() < 0.2) p = `(?i)${p}`;
    return p;
  };
}

const FIXED_LINES = [
  "hello world",
  "foo",
  "bar",
  "foofoo",
  "fooo",
  "oo",
  "lll",
  "HELLO World",
  "Foo bar",
  "aab",
  "ab ab",
  "\u212a KELVIN",
  "\u017f long s",
  "",
  "x1 y22 z333",
  "crlf line\r",
];
const CHARS = ["a", "b", "f", "o", "l", "x", "K", "k", "s", "S", "\u00e9", "1", " ", "h", "e"];

function corpusLines(seed: number, n: number): string[] {
  const r = rng(seed);
  const lines = [...FIXED_LINES];
  while (lines.length < n) {
    let l = "";
    const len = Math.floor(r() * 14);
    for (let j = 0; j < len; j++) l += CHARS[Math.floor(r() * CHARS.length)];
    lines.push(r() < 0.05 ? `${l}\r` : l);
  }
  return lines;
}

/** The 1-based numbers of the lines re2js itself matches. */
function truth(pattern: string, lines: string[]): number[] {
  const re = RE2JS.compile(pattern);
  const out: number[] = [];
  lines.forEach((l, i) => {
    if (re.test(l)) out.push(i + 1);
  });
  return out;
}

const DEFAULT_MISSED = ["o{2}", "l{3}", "(?:foo){2}", "o{2}x", "a\\nb", "(?:ab){2}", "foo"];
/** Patterns no whole-window test may screen (`\A`, `\z`, flags turned off). */
const LINE_ONLY = ["\\Ahello", "o\\z", "(?i)(?-i:K)\\w*", "(?s:o.)$"];

Deno.test("grep agrees line by line with re2js on generated patterns (small corpus)", async () => {
  const lines = corpusLines(7, 200);
  const t = makeTree({ "c.txt": lines.join("\n") + "\n" });
  try {
    const e = env(folderView("app", t.root));
    const next = generator(1);
    const patterns = [...DEFAULT_MISSED, ...LINE_ONLY];
    while (patterns.length < 1500) patterns.push(next());
    const wrong: string[] = [];
    for (const p of patterns) {
      try {
        compileGrepPattern(p);
      } catch {
        continue; // e.g. an empty alternation is refused; re2js agrees or not, not the point
      }
      const d = ok(await runGrep({ pattern: p }, e, { maxResultBytes: 1e9 }));
      const got = d.matches.map((m: Json) => m.line);
      if (JSON.stringify(got) !== JSON.stringify(truth(p, lines))) wrong.push(p);
    }
    assert.deepEqual(wrong, []);
  } finally {
    t.rm();
  }
});

Deno.test("grep agrees with re2js across search windows (a corpus over 256 KiB)", async () => {
  // Long runs without any match, so whole-window tests fail and lines are counted lazily.
  const base = corpusLines(11, 600);
  const lines: string[] = [];
  for (let i = 0; i < 40; i++) {
    lines.push(...base.slice(0, 40 + (i % 7) * 80));
    for (let j = 0; j < 400; j++) lines.push("zzzz qqqq " + "y".repeat(j % 50));
  }
  const text = lines.join("\n");
  assert.ok(Buffer.byteLength(text) > 256 * 1024);
  const t = makeTree({ "big.txt": text });
  try {
    const e = env(folderView("app", t.root));
    const next = generator(2);
    const patterns = [...DEFAULT_MISSED, ...LINE_ONLY, "[A-Z]{2}\\d", "K\\s", "^$", "\\d{3}$"];
    while (patterns.length < 80) patterns.push(next());
    for (const p of patterns) {
      try {
        compileGrepPattern(p);
      } catch {
        continue;
      }
      const d = ok(await runGrep({ pattern: p }, e, { maxResultBytes: 1e9 }));
      assert.deepEqual(d.matches.map((m: Json) => m.line), truth(p, lines), p);
    }
  } finally {
    t.rm();
  }
});

Deno.test("a pure literal still works across files, CRLF and a last line without newline", async () => {
  const t = makeTree({ "a.txt": "xx oo\r\nfoo", "b/c.txt": "no\nfoofoo\n" });
  try {
    const e = env(folderView("app", t.root));
    const d = ok(await runGrep({ pattern: "o{2}" }, e));
    assert.deepEqual(d.matches.map((m: Json) => `${m.path}:${m.line}:${m.text}`), [
      "a.txt:1:xx oo",
      "a.txt:2:foo",
      "b/c.txt:2:foofoo",
    ]);
    fs.writeFileSync(path.join(t.root, "a.txt"), "a\nb\n");
    assert.deepEqual(ok(await runGrep({ pattern: "a\\nb" }, e)).matches, []);
  } finally {
    t.rm();
  }
});
