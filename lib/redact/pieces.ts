/**
 * Redacting consecutive pieces of one text (blocks, lines of a page) as the one text they
 * form, with the source just before and after them when there is one: an occurrence is
 * replaced by one marker, in the piece where its kept part starts; the other pieces drop
 * their part of it.
 *
 * @module
 */

import { REDACTED } from "./types.ts";

/** What redacting pieces needs of a redactor. */
export interface RangeFinder {
  /** Merged `[start, end)` ranges of occurrences in `s`. */
  ranges(s: string): Array<[number, number]>;
}

/**
 * The pieces with every occurrence in `before + pieces.join("") + after` removed; the
 * same array when none touches them.
 *
 * @example
 * ```ts
 * import { Redactor } from "./redactor.ts";
 * import { redactPieces } from "./pieces.ts";
 * const r = new Redactor();
 * r.add("KEY-1\nKEY-2");
 * redactPieces(r, ["x KEY-1\n", "KEY-2 y\n"]); // ["x [protected]", " y\n"]
 * redactPieces(r, ["KEY-2 y\n"], "KEY-1\n"); // ["[protected] y\n"]: the cut part goes too
 * ```
 */
export function redactPieces(
  finder: RangeFinder,
  pieces: readonly string[],
  before = "",
  after = "",
): string[] {
  const joined = before + pieces.join("") + after;
  const ranges = finder.ranges(joined);
  const first = before.length;
  const last = joined.length - after.length;
  if (!ranges.some(([a, z]) => a < last && z > first)) return pieces as string[];
  const out: string[] = [];
  let at = first;
  for (const p of pieces) {
    const start = at;
    const end = at + p.length;
    at = end;
    let text = "";
    let pos = start;
    for (const [a, z] of ranges) {
      if (z <= start || a >= end) continue;
      if (a > pos) text += joined.slice(pos, a);
      if (a >= start || start === first) text += REDACTED;
      pos = Math.min(end, z);
    }
    out.push(text + joined.slice(pos, end));
  }
  return out;
}

/**
 * The pieces redacted as one text (see {@link redactPieces}) when an occurrence runs
 * across a boundary between two of them; the same array when none does (occurrences
 * inside one piece are left for whoever handles that piece whole).
 *
 * @example
 * ```ts
 * import { Redactor } from "./redactor.ts";
 * import { redactAcross } from "./pieces.ts";
 * const r = new Redactor();
 * r.add("tok-123456");
 * redactAcross(r, ["a tok-12", "3456 b"]); // ["a [protected]", " b"]
 * redactAcross(r, ["a tok-123456", " b"]); // the same array: nothing crosses a boundary
 * ```
 */
export function redactAcross(finder: RangeFinder, pieces: readonly string[]): string[] {
  if (pieces.length < 2) return pieces as string[];
  const ranges = finder.ranges(pieces.join(""));
  let edge = 0;
  for (const p of pieces.slice(0, -1)) {
    edge += p.length;
    if (ranges.some(([a, z]) => a < edge && z > edge)) return redactPieces(finder, pieces);
  }
  return pieces as string[];
}
