/**
 * Applying hunks to a text in memory (no I/O): each hunk's old side must match exactly,
 * at its stated line or — when earlier edits moved it — at the nearest line after the
 * previous hunk. No fuzz: context is never ignored.
 *
 * @module
 */

import type { FilePatch, Hunk } from "./patch_parse.ts";

/** Outcome of {@link applyHunks}. */
export type ApplyOutcome =
  | { ok: true; text: string }
  | { ok: false; hunk: number; costly?: boolean };

/**
 * Most line comparisons one patch may spend placing its hunks (all its files together).
 * A hunk is searched for outward from its stated line; a long old side over a file of
 * repeated lines, or many hunks stated far from where they fit, would otherwise compare
 * lines × old lines × hunks times (a 16 KB hunk on a 200 KB file: 4.5 s of a blocked
 * event loop). Hunks stated at their real lines cost only their own length.
 */
export const MAX_PATCH_COMPARISONS = 1 << 25;

/** What a patch may still spend on line comparisons (shared by its files). */
export interface PatchBudget {
  /** Comparisons left. */
  left: number;
}

/** Thrown inside {@link applyHunks} when the budget runs out. */
class OverBudget extends Error {}

/**
 * Split text into lines that keep their `\n` (the last may lack it).
 *
 * @example
 * ```ts
 * import { splitLines } from "./patch_apply.ts";
 * splitLines("a\nb"); // ["a\n", "b"]
 * ```
 */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const out = text.split("\n").map((l) => `${l}\n`);
  const last = out.length - 1;
  out[last] = out[last].slice(0, -1);
  if (out[last] === "") out.pop();
  return out;
}

/** What applying needs of the protected values: where they occur in a text. */
export interface RangeSource {
  /** Merged `[start, end)` ranges of occurrences. */
  ranges(s: string): Array<[number, number]>;
}

/** Which lines hold (a part of) a protected value. */
function heldLines(lines: string[], text: string, protect?: RangeSource): boolean[] {
  const held = new Array<boolean>(lines.length).fill(false);
  const ranges = protect?.ranges(text) ?? [];
  if (ranges.length === 0) return held;
  let start = 0;
  lines.forEach((l, i) => {
    const end = start + l.length;
    held[i] = ranges.some(([a, z]) => a < end && z > start);
    start = end;
  });
  return held;
}

function matchesAt(
  lines: string[],
  held: boolean[],
  at: number,
  old: string[],
  budget: PatchBudget,
): boolean {
  if (at < 0 || at + old.length > lines.length) return false;
  if (--budget.left < 0) throw new OverBudget();
  for (let k = 0; k < old.length; k++) {
    if (held[at + k] || lines[at + k] !== old[k]) {
      budget.left -= k;
      return false;
    }
  }
  budget.left -= old.length;
  return true;
}

function locate(
  lines: string[],
  held: boolean[],
  h: Hunk,
  expected: number,
  floor: number,
  budget: PatchBudget,
): number {
  const max = lines.length - h.oldLines.length;
  if (max < floor) return -1;
  const at = (k: number) => matchesAt(lines, held, k, h.oldLines, budget);
  // Only [floor, max] holds candidates: a stated line outside it (a hunk header may say
  // any number) starts at the nearest end, which visits them in the same order and never
  // walks the distance in between.
  expected = Math.min(Math.max(expected, floor), max);
  for (let d = 0; expected - d >= floor || expected + d <= max; d++) {
    if (expected + d <= max && expected + d >= floor && at(expected + d)) return expected + d;
    if (d > 0 && expected - d >= floor && expected - d <= max && at(expected - d)) {
      return expected - d;
    }
  }
  return -1;
}

/**
 * Apply a file's hunks to `text`; on failure, the 1-based number of the hunk that did
 * not apply (`costly` when placing it ran out of `budget`, see
 * {@link MAX_PATCH_COMPARISONS}). With `protect`, a line holding (a part of) a protected value matches no old
 * line, so a guess at the value is refused exactly like a wrong one.
 *
 * @example
 * ```ts
 * import { applyHunks } from "./patch_apply.ts";
 * import { parseUnifiedDiff } from "./patch_parse.ts";
 * const [fp] = parseUnifiedDiff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
 * applyHunks("a\n", fp); // { ok: true, text: "b\n" }
 * ```
 */
export function applyHunks(
  text: string,
  fp: FilePatch,
  protect?: RangeSource,
  budget: PatchBudget = { left: MAX_PATCH_COMPARISONS },
): ApplyOutcome {
  // Every hunk is located in the original lines, after the previous hunk's old range (the
  // same candidates, in the same order, as searching the text as changed so far: what
  // lies past the last change is original), and the result is assembled once. Rebuilding
  // the whole line array per hunk cost hunks × lines: seconds of a blocked event loop per
  // hundred hunks on a file of a million short lines.
  const lines = splitLines(text);
  // A line holding a protected value never matches: whether a hunk applies must not tell
  // whether its old side guessed the value right.
  const held = heldLines(lines, text, protect);
  const out: string[] = [];
  let floor = 0;
  let delta = 0;
  for (let i = 0; i < fp.hunks.length; i++) {
    const h = fp.hunks[i];
    const stated = h.oldCount === 0 ? h.oldStart : h.oldStart - 1;
    let at: number;
    try {
      at = h.oldLines.length === 0 && lines.length + delta === 0
        ? floor
        : locate(lines, held, h, stated, floor, budget);
    } catch (e) {
      if (e instanceof OverBudget) return { ok: false, hunk: i + 1, costly: true };
      throw e;
    }
    if (at < 0) return { ok: false, hunk: i + 1 };
    for (let k = floor; k < at; k++) out.push(lines[k]);
    for (const l of h.newLines) out.push(l);
    floor = at + h.oldLines.length;
    delta += h.newLines.length - h.oldLines.length;
  }
  for (let k = floor; k < lines.length; k++) out.push(lines[k]);
  return { ok: true, text: out.join("") };
}
