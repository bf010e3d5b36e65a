/**
 * Protected values in unified diff output (`git_diff`): a value that spans lines shows
 * with a prefix (` `, `+` or `-`) at the start of each of its lines, so it is never
 * contiguous in the diff. Each hunk is searched as the text each side of it holds — the
 * new file's lines (context and `+`) and the old file's (context and `-`), prefixes
 * removed — and every diff line an occurrence covers is redacted like a window of that
 * text (the occurrence replaced whole in each line it touches).
 *
 * @module
 */

import { spliceText } from "./ranges.ts";
import { type Protector, REDACTED } from "./types.ts";

/** A hunk body line: context, added, removed, or `\ No newline at end of file`. */
const BODY = /^[ +\-\\]/;

/**
 * `diff` with every protected value that spans lines of a hunk side redacted; the same
 * string when no value spans lines (a value within one line is found in the diff as it is).
 *
 * @example
 * ```ts
 * import { Redactor } from "./redactor.ts";
 * import { redactDiff } from "./diff_lines.ts";
 * const r = new Redactor();
 * r.add("ab\ncd");
 * redactDiff(r, "@@ -0,0 +1,2 @@\n+ab\n+cd\n"); // "@@ -0,0 +1,2 @@\n+[protected]\n+[protected]\n"
 * ```
 */
export function redactDiff(protect: Protector | undefined, diff: string): string {
  if (!protect?.active || protect.maxBreaks === 0) return diff;
  const lines = diff.split("\n");
  let changed = false;
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith("@@")) continue;
    let end = i + 1;
    while (end < lines.length && BODY.test(lines[end])) end++;
    const shown = new Map<number, string>();
    for (const side of ["+", "-"]) redactSide(protect, lines, i + 1, end, side, shown);
    for (const [k, text] of shown) lines[k] = text;
    changed ||= shown.size > 0;
    i = end - 1;
  }
  return changed ? lines.join("\n") : diff;
}

/**
 * One side of the hunk `lines[from, to)`: its text searched, each covered line's redacted
 * form put in `shown` (a context line both sides redact differently is replaced whole).
 */
function redactSide(
  protect: Protector,
  lines: string[],
  from: number,
  to: number,
  side: string,
  shown: Map<number, string>,
): void {
  const idx: number[] = [];
  for (let k = from; k < to; k++) if (lines[k][0] === " " || lines[k][0] === side) idx.push(k);
  const text = idx.map((k) => lines[k].slice(1)).join("\n");
  const ranges = protect.ranges(text);
  if (ranges.length === 0) return;
  let at = 0;
  for (const k of idx) {
    const len = lines[k].length - 1;
    const kept = spliceText(text, ranges, at, at + len, REDACTED);
    if (kept !== text.slice(at, at + len)) {
      const next = lines[k][0] + kept;
      const before = shown.get(k);
      shown.set(k, before === undefined || before === next ? next : lines[k][0] + REDACTED);
    }
    at += len + 1;
  }
}
