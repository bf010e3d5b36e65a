/**
 * The V8 whole-file prefilter must agree with RE2 on every input (it decides whether a
 * file is searched at all) and must only accept patterns without choice points.
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

Deno.test("prefilter refuses every pattern with a choice point or unclear semantics", () => {
  for (
    const p of [
      "a+",
      "a*",
      "a?",
      "a{1,3}",
      "a{2,}",
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
  assert.equal(compileGrepPattern("needle").prefilter, null);
  assert.equal(compileGrepPattern("(a+)+$").prefilter, null);
});

Deno.test("prefilter stays linear on a long adversarial line", () => {
  const pre = compilePrefilter("[A-Z]{200}\\d")!;
  assert.equal(pre.test("A".repeat(500_000)), false);
});
