/**
 * Applying hunks to a text in memory (no I/O): each hunk's old side must match exactly,
 * at its stated line or — when earlier edits moved it — at the nearest line after the
 * previous hunk. No fuzz: context is never ignored.
 *
 * @module
 */

import type { FilePatch, Hunk } from "./patch_parse.ts";

/** Outcome of {@link applyHunks}. */
export type ApplyOutcome = { ok: true; text: string } | { ok: false; hunk: number };

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

function matchesAt(lines: string[], at: number, old: string[]): boolean {
  if (at < 0 || at + old.length > lines.length) return false;
  for (let k = 0; k < old.length; k++) if (lines[at + k] !== old[k]) return false;
  return true;
}

function locate(lines: string[], h: Hunk, expected: number, floor: number): number {
  const max = lines.length - h.oldLines.length;
  for (let d = 0; expected - d >= floor || expected + d <= max; d++) {
    if (
      expected + d <= max && expected + d >= floor && matchesAt(lines, expected + d, h.oldLines)
    ) return expected + d;
    if (
      d > 0 && expected - d >= floor && expected - d <= max &&
      matchesAt(lines, expected - d, h.oldLines)
    ) {
      return expected - d;
    }
  }
  return -1;
}

/**
 * Apply a file's hunks to `text`; on failure, the 1-based number of the hunk that did
 * not apply.
 *
 * @example
 * ```ts
 * import { applyHunks } from "./patch_apply.ts";
 * import { parseUnifiedDiff } from "./patch_parse.ts";
 * const [fp] = parseUnifiedDiff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
 * applyHunks("a\n", fp); // { ok: true, text: "b\n" }
 * ```
 */
export function applyHunks(text: string, fp: FilePatch): ApplyOutcome {
  let lines = splitLines(text);
  let floor = 0;
  let delta = 0;
  for (let i = 0; i < fp.hunks.length; i++) {
    const h = fp.hunks[i];
    const stated = h.oldCount === 0 ? h.oldStart : h.oldStart - 1;
    const at = h.oldLines.length === 0 && lines.length === 0
      ? 0
      : locate(lines, h, stated + delta, floor);
    if (at < 0) return { ok: false, hunk: i + 1 };
    lines = [...lines.slice(0, at), ...h.newLines, ...lines.slice(at + h.oldLines.length)];
    floor = at + h.newLines.length;
    delta += h.newLines.length - h.oldLines.length;
  }
  return { ok: true, text: lines.join("") };
}
