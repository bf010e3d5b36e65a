/**
 * The check that escapes a rendered text starting like an artifact metadata line runs
 * in one pass and agrees with the former regex `^\s*\\*\s*\[\s*artifact` (case-
 * insensitive), which backtracked quadratically over a leading run of blanks.
 */

import assert from "node:assert/strict";
import { markerLike } from "../../lib/odek/render.ts";

const FORMER = /^\s*\\*\s*\[\s*artifact/i;

Deno.test("markerLike agrees with the former regex on every short prefix", () => {
  const parts = [" ", "\t", "\u00a0", "\u2028", "\\", "[", "x", "artifact", "ARTifact", "artifac"];
  let checked = 0;
  const walk = (s: string, left: number) => {
    assert.equal(markerLike(s), FORMER.test(s), JSON.stringify(s));
    checked++;
    if (left > 0) { for (const p of parts) walk(s + p, left - 1); }
  };
  walk("", 6); // 1.1 million texts
  assert.ok(checked > 1_000_000);
});

Deno.test("markerLike: a megabyte of leading blanks is scanned in one pass", () => {
  const blanks = " ".repeat(1 << 20);
  assert.equal(markerLike(`${blanks}x`), false);
  assert.equal(markerLike(`${blanks}\\\\ [ Artifact] id=a`), true);
});
