/**
 * The V8 whole-file prefilter must agree with RE2 on every input (it decides whether a
 * file is searched at all, and tests each line of a window it lets through) and must only
 * accept patterns it can reduce to ones without choice points (variable counts at the ends
 * only).
 */

import assert from "node:assert/strict";
import { RE2JS } from "re2js";
import { compilePrefilter } from "../../lib/grep/fast_prefilter.ts";
import { compileGrepPattern } from "../../lib/grep/regex.ts";

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ATOMS = [
  "a",
  "B",
  "7",
  "_",
  " ",
  "-",
  "\\.",
  "\\d",
  "\\w",
  "[A-C]",
  "[a-c0-2]",
  "[x\\d]",
  ":",
];
const ALPHABET = "aABbCc0127_ .-:x\n\r\té";

Deno.test("prefilter agrees with RE2 on random subset patterns and texts", () => {
  const rand = rng(7);
  for (let n = 0; n < 400; n++) {
    let p = "";
    for (let k = 1 + Math.floor(rand() * 4); k > 0; k--) {
      p += ATOMS[Math.floor(rand() * ATOMS.length)];
      if (rand() < 0.3) p += `{${1 + Math.floor(rand() * 3)}}`;
    }
    const pre = compilePrefilter(p);
    assert.ok(pre, `pattern ${p} should be in the subset`);
    const re2 = RE2JS.compile(p, RE2JS.MULTILINE);
    for (let t = 0; t < 25; t++) {
      let s = "";
      for (let i = Math.floor(rand() * 40); i > 0; i--) {
        s += ALPHABET[Math.floor(rand() * ALPHABET.length)];
      }
      assert.equal(pre.test(s), re2.matcher(s).find(), `pattern ${p} on ${JSON.stringify(s)}`);
    }
  }
});

const COUNTS = ["", "", "{2}", "+", "*", "?", "{2,}", "{1,3}", "{0,2}", "{0}"];

/** Texts with long runs, so ends reduced to their minimum are exercised. */
function randomText(rand: () => number): string {
  let s = "";
  for (let i = Math.floor(rand() * 40); i > 0; i--) {
    const c = ALPHABET[Math.floor(rand() * ALPHABET.length)];
    s += rand() < 0.2 ? c.repeat(1 + Math.floor(rand() * 5)) : c;
  }
  return s;
}

Deno.test("prefilter agrees with RE2 line by line with variable counts anywhere", () => {
  const rand = rng(19);
  let accepted = 0;
  let refused = 0;
  for (let n = 0; n < 1500; n++) {
    let p = "";
    for (let k = 1 + Math.floor(rand() * 4); k > 0; k--) {
      p += ATOMS[Math.floor(rand() * ATOMS.length)] + COUNTS[Math.floor(rand() * COUNTS.length)];
    }
    const pre = compilePrefilter(p);
    if (!pre) {
      refused++;
      continue;
    }
    accepted++;
    const whole = RE2JS.compile(p, RE2JS.MULTILINE);
    const line = RE2JS.compile(p);
    for (let t = 0; t < 25; t++) {
      const s = randomText(rand);
      const where = `pattern ${p} on ${JSON.stringify(s)}`;
      assert.equal(pre.test(s), whole.matcher(s).find(), where);
      for (const l of s.split("\n")) assert.equal(pre.test(l), line.matcher(l).find(), where);
    }
  }
  // Both branches ran: the generator reaches reducible and irreducible patterns.
  assert.ok(accepted > 300 && refused > 300, `${accepted} accepted, ${refused} refused`);
});

Deno.test("prefilter reduces variable counts at the ends only", () => {
  for (const p of ["a+", "[A-Z]+\\d+", "\\w+\\d", "a*b", "a?b+", "a{2,}b{1,3}", "x*y{3}z?"]) {
    assert.ok(compilePrefilter(p), p);
  }
  const pre = compilePrefilter("[A-Z]+\\d+")!;
  assert.equal(pre.test("id AB12"), true);
  assert.equal(pre.test("ab12 A-1"), false);
});

Deno.test("prefilter refuses every pattern with a choice point or unclear semantics", () => {
  for (
    const p of [
      "a*",
      "a?",
      "a?b*",
      "a+b+c",
      "ab*c",
      "a{1,3}b{2,}c",
      "a+?",
      "a*?b",
      "a++",
      "a{2}+",
      "a{,2}",
      "a{3,2}",
      "a{1,257}",
      "a|b",
      "(ab)",
      "(?i)ab",
      ".",
      "\\s",
      "^a",
      "a$",
      "[^a]",
      "\\pL",
      "[[:alpha:]]",
      "\\D",
      "a{0}",
      "a{257}",
      "é",
      "[z-a]",
      "",
    ]
  ) {
    assert.equal(compilePrefilter(p), null, p);
  }
});

Deno.test("prefilter: at most 256 atoms in all (boundary)", () => {
  assert.ok(compilePrefilter("a{256}"));
  assert.equal(compilePrefilter("a{256}b"), null);
  assert.ok(compilePrefilter("a{255}b"));
});

Deno.test("grep uses the prefilter only when no literal is known", () => {
  assert.ok(compileGrepPattern("[A-Z]{3}\\d{4}").prefilter);
  assert.ok(compileGrepPattern("[A-Z]+\\d+").prefilter);
  assert.ok(compileGrepPattern("\\w+\\d").prefilter);
  assert.equal(compileGrepPattern("needle").prefilter, null);
  assert.equal(compileGrepPattern("(a+)+$").prefilter, null);
});

Deno.test("prefilter stays linear on a long adversarial line", () => {
  const pre = compilePrefilter("[A-Z]{200}\\d")!;
  assert.equal(pre.test("A".repeat(500_000)), false);
  // Reduced ends: `\w+\d` on a long digit-free word would be quadratic for a backtracker.
  const reduced = compilePrefilter("\\w+\\d+")!;
  assert.equal(reduced.test("a".repeat(2_000_000)), false); // a backtracker: hours
});
