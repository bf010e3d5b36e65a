/**
 * files_patch applies its hunks in work linear in the file plus the patch: many hunks
 * on a large file used to rebuild the whole line array once per hunk (1,000 hunks on a
 * file of a million short lines held the event loop for about 100 s). The single-pass
 * application is checked against the former per-hunk algorithm on random patches.
 */

import assert from "node:assert/strict";
import {
  applyHunks,
  type ApplyOutcome,
  MAX_PATCH_COMPARISONS,
  splitLines,
} from "../../lib/native/patch_apply.ts";
import { runFilesPatch } from "../../lib/native/patch.ts";
import { appTree } from "./_helpers.ts";
import type { FilePatch, Hunk } from "../../lib/native/patch_parse.ts";

/**
 * The former algorithm, by definition: each hunk at the fitting position nearest the
 * stated one in the text as changed so far, and applied to it.
 */
function reference(text: string, fp: FilePatch): ApplyOutcome {
  let lines = splitLines(text);
  let floor = 0;
  let delta = 0;
  for (let i = 0; i < fp.hunks.length; i++) {
    const h = fp.hunks[i];
    const stated = h.oldCount === 0 ? h.oldStart : h.oldStart - 1;
    const expected = stated + delta;
    const max = lines.length - h.oldLines.length;
    const fits = (k: number) =>
      k >= floor && k <= max && h.oldLines.every((l, j) => lines[k + j] === l);
    // The nearest fitting position to the expected one; on a tie, the later one.
    let at = -1;
    if (h.oldLines.length === 0 && lines.length === 0) at = 0;
    else {
      for (let k = floor; k <= max; k++) {
        if (!fits(k)) continue;
        const better = at < 0 || Math.abs(k - expected) < Math.abs(at - expected) ||
          (Math.abs(k - expected) === Math.abs(at - expected) && k > at);
        if (better) at = k;
      }
    }
    if (at < 0) return { ok: false, hunk: i + 1 };
    lines = [...lines.slice(0, at), ...h.newLines, ...lines.slice(at + h.oldLines.length)];
    floor = at + h.newLines.length;
    delta += h.newLines.length - h.oldLines.length;
  }
  return { ok: true, text: lines.join("") };
}

/** A small deterministic generator (no Math.random: failures replay). */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

function hunk(oldLines: string[], newLines: string[], oldStart: number): Hunk {
  return {
    oldStart,
    oldCount: oldLines.length,
    newStart: 1,
    newCount: newLines.length,
    oldLines,
    newLines,
  };
}

Deno.test("files_patch: single-pass hunks agree with the per-hunk algorithm (random patches)", () => {
  const pick = rng(7);
  const word = () => `${"abc"[pick(3)]}\n`;
  for (let round = 0; round < 3000; round++) {
    const lines = Array.from({ length: pick(12) }, word);
    const text = lines.join("");
    const hunks: Hunk[] = [];
    for (let n = pick(4); n > 0; n--) {
      const len = pick(3);
      const from = pick(lines.length + 1);
      const old = pick(4) === 0 ? Array.from({ length: len }, word) : lines.slice(from, from + len);
      const fresh = Array.from({ length: pick(3) }, () => `${"xyz"[pick(3)]}\n`);
      const start = [from + 1, pick(20), 0, 1e12][pick(4)];
      hunks.push(hunk(old, fresh, old.length === 0 ? Math.max(0, start - 1) : start));
    }
    const fp: FilePatch = { path: "f", action: "modify", hunks };
    assert.deepEqual(applyHunks(text, fp), reference(text, fp), `round ${round}`);
  }
});

Deno.test("files_patch: 2,000 hunks on a file of a million lines apply in one pass", () => {
  const text = "x\n".repeat(1 << 20);
  const hunks = Array.from({ length: 2000 }, (_, i) => hunk(["x\n"], ["y\n"], i * 2 + 1));
  const out = applyHunks(text, { path: "f", action: "modify", hunks });
  assert.ok(out.ok);
  const lines = splitLines(out.text);
  assert.equal(lines.length, 1 << 20);
  assert.equal(lines.filter((l) => l === "y\n").length, 2000);
  assert.equal(lines[0], "y\n");
  assert.equal(lines[1], "x\n");
  assert.equal(lines[3998], "y\n");
});

Deno.test("files_patch: placing hunks is bounded by a comparison budget, not lines x old lines", () => {
  // A long old side over repeated lines compared almost all of itself at every position:
  // 8,000 old lines over a 100,000-line file held the event loop 4.5 s, and grew with both.
  const text = "x\n".repeat(100_000);
  const long = hunk([...Array(8000).fill("x\n"), "q\n"], [], 1);
  const a = applyHunks(text, { path: "f", action: "modify", hunks: [long] });
  assert.deepEqual(a, { ok: false, hunk: 1, costly: true });
  // Many hunks stated far from where they fit: each walked the whole file back.
  const head = Array.from({ length: 1500 }, (_, i) => `a${i}\n`).join("");
  const far = Array.from({ length: 1500 }, (_, i) => hunk([`a${i}\n`], ["b\n"], 1e12));
  const b = applyHunks(head + "z\n".repeat(1 << 20), { path: "f", action: "modify", hunks: far });
  assert.equal(b.ok, false);
  assert.ok(!b.ok && b.costly && b.hunk > 1, "refused once the budget is spent");
  // Stated exactly, the same hunks cost only their own length.
  const exact = far.map((h, i) => ({ ...h, oldStart: i + 1 }));
  assert.ok(applyHunks(head, { path: "f", action: "modify", hunks: exact }).ok);
  assert.ok(MAX_PATCH_COMPARISONS >= 1 << 20);
});

Deno.test("files_patch: an over-budget patch is refused with a message, nothing written", async () => {
  const body = "x\n".repeat(100_000);
  const t = appTree({ "f.txt": body });
  try {
    const old = `${"-x\n".repeat(8000)}-q\n`;
    const patch = `--- a/f.txt\n+++ b/f.txt\n@@ -1,8001 +0,0 @@\n${old}`;
    await assert.rejects(
      () => runFilesPatch({ patch }, t.e),
      /hunk 1 could not be placed within \d+ line comparisons/,
    );
    assert.equal(Deno.readTextFileSync(`${t.app}/f.txt`), body);
  } finally {
    t.rm();
  }
});
