/**
 * Matching one path component against one glob segment: `*` (any run within the
 * component), `?` (one character), `[abc]`/`[a-z]`/`[!x]`/`[^x]` (one character from a
 * set); everything else is literal. Common shapes (literal, `*`, `*.ext`, `pre*`,
 * `*mid*`) use direct string tests; the general case is an iterative two-pointer matcher
 * that runs in O(name × segment) time, with no backtracking blow-up.
 *
 * @module
 */

/** One token of a general segment. */
type Token =
  | { t: "lit"; cp: number }
  | { t: "any" }
  | { t: "star" }
  | { t: "set"; negate: boolean; ranges: number[] };

/** A compiled segment: a predicate over one component name. */
export type SegmentMatcher = (name: string) => boolean;

function parseSet(cps: number[], i: number): { token: Token; next: number } | null {
  let j = i + 1;
  let negate = false;
  if (cps[j] === 0x21 /* ! */ || cps[j] === 0x5e /* ^ */) {
    negate = true;
    j++;
  }
  const ranges: number[] = [];
  let first = true;
  while (j < cps.length && (cps[j] !== 0x5d /* ] */ || first)) {
    const lo = cps[j];
    if (cps[j + 1] === 0x2d /* - */ && j + 2 < cps.length && cps[j + 2] !== 0x5d) {
      ranges.push(lo, cps[j + 2]);
      j += 3;
    } else {
      ranges.push(lo, lo);
      j++;
    }
    first = false;
  }
  if (j >= cps.length) return null; // unclosed: `[` is literal
  return { token: { t: "set", negate, ranges }, next: j + 1 };
}

function tokenize(seg: string): Token[] {
  const cps = Array.from(seg, (c) => c.codePointAt(0) as number);
  const out: Token[] = [];
  for (let i = 0; i < cps.length;) {
    const c = cps[i];
    if (c === 0x2a /* * */) {
      if (out[out.length - 1]?.t !== "star") out.push({ t: "star" });
      i++;
    } else if (c === 0x3f /* ? */) {
      out.push({ t: "any" });
      i++;
    } else if (c === 0x5b /* [ */) {
      const set = parseSet(cps, i);
      if (set) {
        out.push(set.token);
        i = set.next;
      } else {
        out.push({ t: "lit", cp: c });
        i++;
      }
    } else {
      out.push({ t: "lit", cp: c });
      i++;
    }
  }
  return out;
}

function tokenMatches(tok: Token, cp: number): boolean {
  if (tok.t === "any") return true;
  if (tok.t === "lit") return tok.cp === cp;
  if (tok.t === "set") {
    let hit = false;
    for (let k = 0; k < tok.ranges.length; k += 2) {
      if (cp >= tok.ranges[k] && cp <= tok.ranges[k + 1]) {
        hit = true;
        break;
      }
    }
    return hit !== tok.negate;
  }
  return false;
}

/** Iterative wildcard match: on mismatch, retry from the last star one step further. */
function matchTokens(tokens: Token[], name: string): boolean {
  const cps = Array.from(name, (c) => c.codePointAt(0) as number);
  let ti = 0;
  let ni = 0;
  let starTi = -1;
  let starNi = 0;
  while (ni < cps.length) {
    if (ti < tokens.length && tokens[ti].t === "star") {
      starTi = ti++;
      starNi = ni;
    } else if (ti < tokens.length && tokenMatches(tokens[ti], cps[ni])) {
      ti++;
      ni++;
    } else if (starTi >= 0) {
      ti = starTi + 1;
      ni = ++starNi;
    } else {
      return false;
    }
  }
  while (ti < tokens.length && tokens[ti].t === "star") ti++;
  return ti === tokens.length;
}

const META = /[*?[]/;

/**
 * Compile one glob segment (no `/`) into a predicate.
 *
 * @example
 * ```ts
 * import { compileSegment } from "./segment.ts";
 * compileSegment("*.ts")("mod.ts"); // true
 * compileSegment("a?[0-9]")("ab7"); // true
 * ```
 */
export function compileSegment(seg: string): SegmentMatcher {
  if (!META.test(seg)) return (name) => name === seg;
  if (seg === "*" || /^\*+$/.test(seg)) return () => true;
  const inner = seg.slice(1, -1);
  if (seg.startsWith("*") && !META.test(seg.slice(1))) {
    const suffix = seg.slice(1);
    return (name) => name.endsWith(suffix);
  }
  if (seg.endsWith("*") && !META.test(seg.slice(0, -1))) {
    const prefix = seg.slice(0, -1);
    return (name) => name.startsWith(prefix);
  }
  if (seg.startsWith("*") && seg.endsWith("*") && !META.test(inner)) {
    return (name) => name.includes(inner);
  }
  const tokens = tokenize(seg);
  return (name) => matchTokens(tokens, name);
}
