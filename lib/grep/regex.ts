/**
 * Grep patterns: Rust-regex/RE2 syntax compiled by `re2js` (linear-time matching, no
 * backreferences or lookaround), with a 2 MiB compiled-size ceiling and the literals
 * every match must contain (used to find candidate lines with a byte search before any
 * regex runs).
 *
 * Compiled size is approximated, since re2js and Rust's regex differ internally:
 * 32 bytes per program instruction plus 8 bytes per character-class range bound; the
 * ceiling applies to that figure. Before compiling, the instruction count is estimated
 * from the pattern text (atoms × the repetition counts around them), and a pattern whose
 * estimate exceeds the ceiling by more than 25% (like `a{999}a{999}…`) is refused without
 * spending seconds compiling it.
 *
 * @module
 */

import { compilePrefilter, type Prefilter } from "./fast_prefilter.ts";
import { RE2JS } from "re2js";
import { MAX_PATTERN_UNITS, PatternError } from "../glob/pattern.ts";
import type { ScanLiteral } from "./byte_scan.ts";

/** The compiled-size ceiling, in (approximate) bytes. */
export const MAX_COMPILED_REGEX_BYTES = 2 * 1024 * 1024;
const BYTES_PER_INST = 32;
const BYTES_PER_RANGE_BOUND = 8;

/** A compiled grep pattern. */
export interface GrepPattern {
  /** Matches one line (without its `\n`). */
  line: RE2JS;
  /**
   * The pattern with `^`/`$` at line boundaries, for a whole-file pre-check; null when
   * unsafe or not needed (literals or the prefilter screen files instead).
   */
  whole: RE2JS | null;
  /** Byte literals, one of which every match's line contains; null when none is known. */
  literals: ScanLiteral[] | null;
  /**
   * True when the pattern is exactly the literal `literals[0]` (no anchors, classes,
   * repetition or case folding), so any line holding it matches and no regex runs.
   */
  pureLiteral: boolean;
  /**
   * A linear-time V8 check for a tiny safe subset (see fast_prefilter.ts): whole windows,
   * then the lines of a window that passes.
   */
  prefilter: Prefilter | null;
}

interface SizeFrame {
  total: number;
  last: number;
  capture: boolean;
}

function readRepeat(p: string, i: number): { max: number; next: number } | null {
  const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i, i + 24));
  if (!m) return null;
  const lo = Number(m[1]);
  const hi = m[3] === undefined ? lo : m[3] === "" ? lo + 1 : Number(m[3]);
  return { max: Math.max(lo, hi, 1), next: i + m[0].length };
}

function skipClass(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === "^") j++;
  if (p[j] === "]") j++;
  while (j < p.length && p[j] !== "]") {
    if (p[j] === "\\") j += 2;
    else if (p[j] === "[" && p[j + 1] === ":") {
      const end = p.indexOf(":]", j + 2);
      j = end < 0 ? j + 1 : end + 2;
    } else j++;
  }
  return j + 1;
}

function skipEscape(p: string, i: number): number {
  const c = p[i + 1];
  if (c === "Q") {
    const end = p.indexOf("\\E", i + 2);
    return end < 0 ? p.length : end + 2;
  }
  if ((c === "x" || c === "p" || c === "P") && p[i + 2] === "{") {
    const end = p.indexOf("}", i + 3);
    return end < 0 ? p.length : end + 1;
  }
  if (c === "p" || c === "P") return i + 3;
  if (c === "x") return i + 4;
  return i + 2;
}

/**
 * Upper-bound estimate of the program size (instructions) of a pattern, from its text.
 *
 * @example
 * ```ts
 * import { estimateProgramSize } from "./regex.ts";
 * estimateProgramSize("a{10}b"); // about 12
 * ```
 */
export function estimateProgramSize(p: string): number {
  const stack: SizeFrame[] = [{ total: 0, last: 0, capture: false }];
  const atom = (n: number, next: number) => {
    const f = stack[stack.length - 1];
    f.total += n;
    f.last = n;
    return next;
  };
  for (let i = 0; i < p.length;) {
    const c = p[i];
    const f = stack[stack.length - 1];
    if (c === "\\") i = atom(1, skipEscape(p, i));
    else if (c === "[") i = atom(1, skipClass(p, i));
    else if (c === "(") {
      const flagsOnly = /^\(\?[a-zA-Z-]*\)/.exec(p.slice(i, i + 40));
      if (flagsOnly) {
        i += flagsOnly[0].length;
        continue;
      }
      const prefix = /^\((?:\?(?:P?<[^>]*>|[a-zA-Z-]*:))?/.exec(p.slice(i, i + 80));
      const open = prefix ? prefix[0] : "(";
      stack.push({ total: 0, last: 0, capture: !open.endsWith(":") });
      i += open.length;
    } else if (c === ")") {
      const done = stack.length > 1 ? stack.pop() as SizeFrame : null;
      i = atom(done ? done.total + (done.capture ? 2 : 0) : 1, i + 1);
    } else if (c === "|") {
      f.total += 1;
      f.last = 0;
      i++;
    } else if (c === "*" || c === "+" || c === "?") {
      f.total += 1;
      f.last += 1;
      i++;
    } else if (c === "{" && readRepeat(p, i)) {
      const r = readRepeat(p, i) as { max: number; next: number };
      f.total += f.last * (r.max - 1) + 1;
      f.last = f.last * r.max + 1;
      i = r.next;
    } else i = atom(1, i + 1);
  }
  while (stack.length > 1) {
    const done = stack.pop() as SizeFrame;
    stack[stack.length - 1].total += done.total;
  }
  return stack[0].total + 2;
}

/**
 * The approximate compiled size of a compiled pattern in bytes: 32 per instruction plus
 * 8 per character-class range bound.
 *
 * @example
 * ```ts
 * import { RE2JS } from "re2js";
 * import { compiledRegexBytes } from "./regex.ts";
 * compiledRegexBytes(RE2JS.compile("abc")); // a few hundred bytes
 * ```
 */
export function compiledRegexBytes(re: RE2JS): number {
  const insts = (re.re2().prog?.inst ?? []) as Array<{ runes?: ArrayLike<number> }>;
  let bytes = 0;
  for (const inst of insts) {
    bytes += BYTES_PER_INST + (inst.runes ? inst.runes.length * BYTES_PER_RANGE_BOUND : 0);
  }
  return bytes;
}

interface PrefilterShape {
  type: number;
  bytes?: ArrayLike<number> | null;
  subs?: PrefilterShape[];
  allExact?: boolean;
}

const PF_EXACT = 1;
const PF_AND = 2;
const PF_OR = 3;
const MAX_ALTERNATIVES = 16;

function exactBytes(pf: PrefilterShape | undefined): Uint8Array | null {
  if (!pf || pf.type !== PF_EXACT || !pf.bytes || pf.bytes.length === 0) return null;
  return Uint8Array.from(pf.bytes);
}

function orLiterals(pf: PrefilterShape): Uint8Array[] | null {
  if (pf.type !== PF_OR || !pf.allExact || !pf.subs || pf.subs.length > MAX_ALTERNATIVES) {
    return null;
  }
  const out = pf.subs.map(exactBytes);
  return out.every((b) => b !== null) ? out as Uint8Array[] : null;
}

/** The literal set re2js's own prefilter proves every match contains, if any. */
function requiredLiterals(re: RE2JS): Uint8Array[] | null {
  try {
    const pf = re.re2().prefilter as PrefilterShape | null;
    if (!pf) return null;
    const one = exactBytes(pf);
    if (one) return [one];
    if (pf.type === PF_OR) return orLiterals(pf);
    if (pf.type !== PF_AND || !pf.subs) return null;
    let best: Uint8Array | null = null;
    for (const sub of pf.subs) {
      const b = exactBytes(sub);
      if (b && (!best || b.length > best.length)) best = b;
    }
    if (best) return [best];
    for (const sub of pf.subs) {
      const alts = orLiterals(sub);
      if (alts) return alts;
    }
    return null;
  } catch {
    return null;
  }
}

const NEWLINE = 0x0a;

/**
 * The literal a pattern is exactly, as UTF-8, when the whole pattern is one (re2js's
 * complete prefix: case-sensitive runes straight to the match, no anchors, classes or
 * repetition left) and a line can hold it (no `\n`); null otherwise. This, not
 * {@linkcode requiredLiterals}, decides `pureLiteral`: the required literal of `o{2}` is
 * only `o`, while its complete prefix is `oo`.
 */
function completeLiteral(re: RE2JS): Uint8Array | null {
  const re2 = re.re2();
  if (re2.prefixComplete !== true || typeof re2.prefix !== "string") return null;
  if (re2.prefix.length === 0) return null;
  const bytes = new TextEncoder().encode(re2.prefix);
  return bytes.includes(NEWLINE) ? null : bytes;
}

/** ASCII letters whose case folding reaches non-ASCII characters (KELVIN SIGN, LONG S). */
const NON_ASCII_FOLDS = new Set([0x4b, 0x6b, 0x53, 0x73]);
const MIN_FOLD_LITERAL = 3;

function isAsciiLetter(b: number): boolean {
  return (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
}

/** The longest run of bytes whose case variants are all ASCII, as a masked literal. */
function foldRun(lit: Uint8Array): ScanLiteral | null {
  let best = [0, 0];
  let start = 0;
  for (let i = 0; i <= lit.length; i++) {
    if (i === lit.length || lit[i] >= 0x80 || NON_ASCII_FOLDS.has(lit[i])) {
      if (i - start > best[1] - best[0]) best = [start, i];
      start = i + 1;
    }
  }
  if (best[1] - best[0] < MIN_FOLD_LITERAL) return null;
  const run = lit.slice(best[0], best[1]);
  const mask = run.map((b) => (isAsciiLetter(b) ? 0x20 : 0));
  return { bytes: run.map((b, i) => b | mask[i]), mask };
}

/**
 * For a pattern that starts with `(?i)`, the literals of the rest, searched ASCII
 * case-insensitively. Only runs free of letters whose folds leave ASCII are used, so the
 * byte search never misses a line the regex would match.
 */
function caseInsensitiveLiterals(pattern: string): ScanLiteral[] | null {
  if (!pattern.startsWith("(?i)")) return null;
  let rest: RE2JS;
  try {
    rest = RE2JS.compile(pattern.slice(4));
  } catch {
    return null;
  }
  const lits = requiredLiterals(rest);
  if (!lits) return null;
  const out: ScanLiteral[] = [];
  for (const lit of lits) {
    const run = foldRun(lit);
    if (!run) return null;
    out.push(run);
  }
  return out;
}

/** Patterns whose meaning changes when run over a whole file instead of one line. */
const WHOLE_UNSAFE = /\\[Az]|\(\?[a-zA-Z]*-/;

function syntaxReason(e: unknown): string {
  const d = (e as { error?: unknown }).error;
  if (typeof d === "string" && d.length > 0 && d.length < 100) return ` (${d})`;
  return "";
}

/**
 * Validate and compile a grep pattern.
 *
 * @throws {PatternError} for an empty, too long, invalid or oversized pattern; messages
 * name the kind of syntax error, never the pattern.
 * @example
 * ```ts
 * import { compileGrepPattern } from "./regex.ts";
 * const g = compileGrepPattern("fn\\s+main");
 * g.line.test("pub fn main() {"); // true
 * ```
 */
export function compileGrepPattern(pattern: unknown): GrepPattern {
  if (typeof pattern !== "string") throw new PatternError("The grep pattern must be a string.");
  if (pattern.length === 0) throw new PatternError("The grep pattern is empty.");
  if (pattern.length > MAX_PATTERN_UNITS) {
    throw new PatternError("The grep pattern is longer than 4096 characters.");
  }
  const tooBig = () =>
    new PatternError(
      "The grep pattern compiles to more than the 2 MiB regex size limit; simplify it " +
        "(for example, use smaller repetition counts).",
    );
  // The estimate is close to the real instruction count (within ~10%); only a clear
  // excess is refused before compiling, the compiled size below is the rule.
  if (estimateProgramSize(pattern) * BYTES_PER_INST > MAX_COMPILED_REGEX_BYTES * 1.25) {
    throw tooBig();
  }
  let line: RE2JS;
  try {
    line = RE2JS.compile(pattern);
  } catch (e) {
    throw new PatternError(
      `The grep pattern is not a valid regular expression${syntaxReason(e)}. Grep uses ` +
        "Rust regex syntax (no backreferences or lookaround).",
    );
  }
  if (compiledRegexBytes(line) > MAX_COMPILED_REGEX_BYTES) throw tooBig();
  const complete = completeLiteral(line);
  const exact = complete ? [complete] : requiredLiterals(line);
  const literals = exact
    ? exact.map((bytes) => ({ bytes, mask: null }))
    : caseInsensitiveLiterals(pattern);
  const pureLiteral = complete !== null;
  const prefilter = literals === null ? compilePrefilter(pattern) : null;
  // The whole-buffer regex only screens files where neither literals nor the V8 prefilter
  // can (search.ts `searchLines`); compiling it otherwise was a second compile per call.
  const whole = literals !== null || prefilter !== null || WHOLE_UNSAFE.test(pattern)
    ? null
    : RE2JS.compile(pattern, RE2JS.MULTILINE);
  return { line, whole, literals, pureLiteral, prefilter };
}
