/**
 * Finding forms that line breaks split. Encoders wrap what they write: `base64` (coreutils)
 * and MIME at 76 columns, PEM and `openssl base64` at 64, `xxd -p` at 60, `fold` and
 * pretty-printers wherever a line ends — and a value's form inside a longer stream lands
 * at any column, so a break can fall between any two of its characters. A form made only
 * of base64, base64url and hex characters (letters, digits, `+ / - _`: base64 and hex
 * forms, a token of such characters as it is) is found with a line break (`\n` or
 * `\r\n`, followed by up to {@link MAX_INDENT} spaces or tabs, as in an indented YAML or
 * config block) between any two of its characters, as often as it has characters.
 *
 * Found by construction rather than form by form: the text is searched with every such
 * break between two such characters taken out (one native pass), and what is found is
 * mapped back to where it is in the text (the breaks inside it included). These forms are
 * searched that way only — whole ones too — so the cost is that pass, not a second
 * search. What a window, a cut or a stream holds back grows with it: a split form takes
 * up to {@link MAX_BREAK_UNITS} more units per character ({@link SplitMatcher.maxUnits}).
 *
 * @module
 */

import { Matcher } from "./matcher.ts";
import type { Range } from "./ranges.ts";

/** Shortest form found split (a shorter one would match ordinary text split over lines). */
export const MIN_WRAPPED_UNITS = 8;
/** Most spaces or tabs after a line break inside a split form (an indented block). */
export const MAX_INDENT = 8;
/** Most UTF-16 units (and bytes) one break inside a form takes: CR, LF and the indent. */
export const MAX_BREAK_UNITS = 2 + MAX_INDENT;

/** The characters of a form that may be split (base64, base64url, hex). */
const SPLITTABLE = /^[A-Za-z0-9+/_-]+$/;
const CHAR = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-") {
  CHAR[c.charCodeAt(0)] = 1;
}
/** Splittable characters joined by breaks, maybe ending with a break or its start. */
const JOINED_TAIL = new RegExp(
  `^[A-Za-z0-9+/_-]+(?:\\r?\\n[ \\t]{0,${MAX_INDENT}}[A-Za-z0-9+/_-]+)*` +
    `(?:\\r|\\r?\\n[ \\t]{0,${MAX_INDENT}})?$`,
);
/** The same, ending with a splittable character (nothing follows: no break goes on). */
const JOINED_TAIL_ENDED = new RegExp(
  `^[A-Za-z0-9+/_-]+(?:\\r?\\n[ \\t]{0,${MAX_INDENT}}[A-Za-z0-9+/_-]+)*$`,
);
/** A text's head of splittable characters joined by breaks (an indent before it). */
const JOINED_HEAD = new RegExp(
  `^[ \\t]{0,${MAX_INDENT}}[A-Za-z0-9+/_-]+(?:\\r?\\n[ \\t]{0,${MAX_INDENT}}[A-Za-z0-9+/_-]+)*`,
);
/** Fewest characters of a split form a cut's edge is redacted for (fewer match anything). */
export const MIN_EDGE_UNITS = 4;
const LF = 10;
const CR = 13;

function isChar(c: number): boolean {
  return c < 128 && CHAR[c] === 1;
}

/**
 * The break around the `\n` at `lf` as `[start, end)` (its CR before, its indent after)
 * when it joins two splittable characters; else undefined.
 */
function joiningBreak(s: string, lf: number): Range | undefined {
  const start = lf > 0 && s.charCodeAt(lf - 1) === CR ? lf - 1 : lf;
  if (start === 0 || !isChar(s.charCodeAt(start - 1))) return undefined;
  let end = lf + 1;
  const most = Math.min(s.length, end + MAX_INDENT);
  while (end < most && (s.charCodeAt(end) === 32 || s.charCodeAt(end) === 9)) end++;
  return end < s.length && isChar(s.charCodeAt(end)) ? [start, end] : undefined;
}

/** Where the joining breaks of a text were taken out. */
interface Joined {
  /** Index in the joined text where each break was taken out (ascending). */
  at: number[];
  /** Units taken out up to and including each break. */
  removed: number[];
}

/**
 * The breaks that join splittable characters, as {@link joiningBreak} finds them, in one
 * native pass (the joined text is searched first; where it was joined is only worked out
 * when something was found there).
 */
const JOINING = new RegExp(
  `(?<=[A-Za-z0-9+/_-])\\r?\\n[ \\t]{0,${MAX_INDENT}}(?=[A-Za-z0-9+/_-])`,
  "g",
);

/** Where `s`'s joining breaks are (the same ones {@link JOINING} takes out). */
function joinedAt(s: string): Joined {
  const at: number[] = [];
  const removed: number[] = [];
  let gone = 0;
  for (let lf = s.indexOf("\n"); lf >= 0; lf = s.indexOf("\n", lf + 1)) {
    const brk = joiningBreak(s, lf);
    if (brk === undefined) continue;
    at.push(brk[0] - gone);
    gone += brk[1] - brk[0];
    removed.push(gone);
  }
  return { at, removed };
}

/** Where the character at `p` of a joined text is in the text it was joined from. */
function place(j: Joined, p: number): number {
  let lo = 0;
  let hi = j.at.length; // the breaks taken out before `p`: those at or before it
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (j.at[mid] <= p) lo = mid + 1;
    else hi = mid;
  }
  return p + (lo === 0 ? 0 : j.removed[lo - 1]);
}

/**
 * The forms that may be split, and how to find them split.
 *
 * @example
 * ```ts
 * import { SplitMatcher } from "./wrapped.ts";
 * const m = new SplitMatcher(["c2VjcmV0LXRva2Vu", "not a form: spaces"]);
 * m.ranges("x: c2VjcmV0\n  LXRva2Vu\n"); // [[3, 21]]
 * m.partialAtEnd("x: c2Vj\r"); // 5: "c2Vj\r" may still become one
 * ```
 */
export class SplitMatcher {
  readonly #forms: string[];
  readonly #matcher: Matcher;
  /** Characters of the longest form that may be split (0: none). */
  readonly longest: number;

  /** Keep, of `forms`, those made only of splittable characters and long enough. */
  constructor(forms: Iterable<string>) {
    this.#forms = [...forms].filter(SplitMatcher.takes);
    this.#matcher = new Matcher(this.#forms);
    this.longest = Math.max(0, ...this.#forms.map((f) => f.length));
  }

  /** Most units a split form takes in a text (every break at its widest). */
  get maxUnits(): number {
    return this.longest === 0 ? 0 : this.longest + (this.longest - 1) * MAX_BREAK_UNITS;
  }

  /** Most line breaks in a split form. */
  get maxBreaks(): number {
    return Math.max(0, this.longest - 1);
  }

  /** Whether `form` is one this matcher finds (split or not). */
  static takes(form: string): boolean {
    return form.length >= MIN_WRAPPED_UNITS && SPLITTABLE.test(form);
  }

  /** Where its forms occur in `s`, split by line breaks or not (merged ranges). */
  ranges(s: string): Range[] {
    return this.#ranges(s, true);
  }

  /**
   * Where its forms occur in `s` split by line breaks (merged ranges; whole ones may be
   * left out: for a caller that finds those as literals). Nothing to search when no break
   * joins two splittable characters.
   */
  splitRanges(s: string): Range[] {
    return this.#ranges(s, false);
  }

  #ranges(s: string, whole: boolean): Range[] {
    if (this.longest === 0) return [];
    const joined = s.replace(JOINING, "");
    if (joined.length === s.length) return whole ? this.#matcher.ranges(s) : [];
    const found = this.#matcher.ranges(joined);
    if (found.length === 0) return found;
    const j = joinedAt(s);
    return found.map(([a, z]) => [place(j, a), place(j, z - 1) + 1]);
  }

  /** Whether `s` holds one of its forms, split by line breaks or not. */
  has(s: string): boolean {
    return this.longest > 0 && this.#matcher.has(s.replace(JOINING, ""));
  }

  /**
   * Units at the end of `s` that begin a form, split or about to be (a break or its start
   * at the very end), without completing it: the longest such tail; 0 when none. With
   * `ended` (nothing follows `s`), a tail that only a break at the end could go on from
   * is none.
   */
  partialAtEnd(s: string, ended = false): number {
    if (this.longest === 0) return 0;
    // The tail that may be part of a split form: splittable characters and breaks.
    let start = s.length;
    const least = Math.max(0, s.length - this.maxUnits);
    while (start > least) {
      const c = s.charCodeAt(start - 1);
      if (isChar(c) || c === LF || c === CR || c === 32 || c === 9) start--;
      else break;
    }
    const kept: number[] = []; // where each kept character is in `s`
    let joined = "";
    for (let i = start; i < s.length; i++) {
      if (isChar(s.charCodeAt(i))) {
        kept.push(i);
        joined += s[i];
      }
    }
    let best = 0;
    for (const f of this.#forms) {
      for (let n = Math.min(f.length - 1, joined.length); n > 0; n--) {
        const from = kept[joined.length - n];
        if (s.length - from <= best) break;
        if (joined.endsWith(f.slice(0, n)) && this.#joins(s, from, ended)) {
          best = s.length - from;
          break;
        }
      }
    }
    return best;
  }

  /**
   * Ranges of `s` — cut from a longer text at line breaks on both sides, as a diff's hunk
   * is — that may be the part of a split form the cuts go through: a tail that begins
   * one, a head that ends one, or all of `s`, from the middle of one. Ends of fewer than
   * {@link MIN_EDGE_UNITS} characters are left (they would match ordinary text).
   */
  cutEdges(s: string): Range[] {
    if (this.longest === 0) return [];
    const out: Range[] = [];
    const head = JOINED_HEAD.exec(s)?.[0] ?? "";
    const kept: number[] = [];
    let joined = "";
    for (let i = 0; i < head.length && kept.length < this.longest; i++) {
      if (isChar(head.charCodeAt(i))) {
        kept.push(i);
        joined += head[i];
      }
    }
    if (head.length === s.length && this.#forms.some((f) => f.includes(joined))) {
      return [[0, s.length]];
    }
    let end = 0;
    for (const f of this.#forms) {
      for (let n = Math.min(f.length - 1, joined.length); n >= MIN_EDGE_UNITS; n--) {
        if (kept[n - 1] + 1 <= end) break;
        if (f.endsWith(joined.slice(0, n))) {
          end = kept[n - 1] + 1;
          break;
        }
      }
    }
    if (end > 0) out.push([0, end]);
    const tail = this.partialAtEnd(`${s}\n`) - 1; // the cut is a break: what follows goes on
    let chars = 0;
    for (let i = s.length - Math.max(0, tail); i < s.length; i++) {
      if (isChar(s.charCodeAt(i))) chars++;
    }
    if (chars >= MIN_EDGE_UNITS) out.push([s.length - tail, s.length]);
    return out;
  }

  /** Whether `s[from, end)` is splittable characters joined by breaks only. */
  #joins(s: string, from: number, ended: boolean): boolean {
    return (ended ? JOINED_TAIL_ENDED : JOINED_TAIL).test(s.slice(from));
  }
}
