/**
 * Protected values in unified diff output (`git_diff`): a value that spans lines shows
 * with a prefix (` `, `+` or `-`) at the start of each of its lines, so it is never
 * contiguous in the diff. Each hunk is searched as the text each side of it holds — the
 * new file's lines (context and `+`) and the old file's (context and `-`), prefixes
 * removed — and every diff line an occurrence covers is redacted like a window of that
 * text (the occurrence replaced whole in each line it touches). Each edge of a hunk side
 * is a cut of the file: whole lines there that a value's lines begin or end with (the
 * first lines of a value after the last line shown, or its last lines before the first)
 * are redacted as part of it, and so is a side that lies wholly inside a value.
 *
 * @module
 */

import { mergeRanges, type Range, spliceText } from "./ranges.ts";
import { type Protector, REDACTED } from "./types.ts";

/** A hunk header's ranges, without the function context git may put after them. */
const HEADER = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/;
/** A hunk body line: context, added, removed, or `\ No newline at end of file`. */
const BODY = /^[ +\-\\]/;

/**
 * `diff` with every protected value that spans lines of a hunk side redacted, and hunk
 * headers without their function context; the same string without protected values (a
 * value within one line is found in the diff as it is).
 *
 * @example
 * ```ts
 * import { Redactor } from "./redactor.ts";
 * import { redactDiff } from "./diff_lines.ts";
 * const r = new Redactor();
 * r.add("ab\ncd");
 * redactDiff(r, "@@ -0,0 +1,2 @@ f\n+ab\n+cd\n"); // "@@ -0,0 +1,2 @@\n+[protected]\n+[protected]\n"
 * ```
 */
export function redactDiff(protect: Protector | undefined, diff: string): string {
  if (!protect?.active) return diff;
  const lines = diff.split("\n");
  let changed = false;
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith("@@")) continue;
    // git follows the range with a line from before the hunk, cut at 80 bytes: a window
    // of the file whose cut may go through a value. It is left out.
    const header = HEADER.exec(lines[i]);
    if (header !== null && header[0] !== lines[i]) {
      lines[i] = header[0];
      changed = true;
    }
    if (protect.maxBreaks === 0) continue;
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
  const ranges = mergeRanges([...protect.ranges(text), ...edgeRanges(protect, text)]);
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

/**
 * Ranges of `text` (a hunk side, cut from its file at both ends) that may be the visible
 * part of a multi-line value the cuts go through: a tail that is a value's first lines, a
 * head that is its last lines, or the whole text as lines from its middle.
 */
function edgeRanges(protect: Protector, text: string): Range[] {
  const out: Range[] = protect.splitEdges(text); // a wrapped base64 or hex form the cut splits
  for (const form of multiLineForms(protect)) {
    if (form.includes(`\n${text}\n`)) return [[0, text.length]];
    for (let k = form.indexOf("\n"); k >= 0; k = form.indexOf("\n", k + 1)) {
      const first = form.slice(0, k); // lines before a break: shown last, the rest cut off
      const last = form.slice(k + 1); // lines after a break: shown first, the start cut off
      if (first !== "" && text.endsWith(first)) out.push([text.length - first.length, text.length]);
      if (last !== "" && text.startsWith(last)) out.push([0, last.length]);
    }
  }
  return out;
}

const decoded = new WeakMap<readonly Uint8Array[], string[]>();

/** The forms of `protect`'s values that span lines, decoded once per set of forms. */
function multiLineForms(protect: Protector): string[] {
  const needles = protect.needles();
  let forms = decoded.get(needles);
  if (forms === undefined) {
    forms = needles.filter((n) => n.includes(0x0a)).map((n) => new TextDecoder().decode(n));
    decoded.set(needles, forms);
  }
  return forms;
}
