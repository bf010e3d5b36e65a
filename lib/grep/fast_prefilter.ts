/**
 * A whole-file prefilter on V8's regex engine for a deliberately tiny pattern subset
 * where backtracking is impossible: a sequence of single-character atoms (ASCII literals,
 * escaped punctuation, `\d`, `\w`, and non-negated bracket classes of ASCII literals and
 * ranges), each optionally repeated exactly `{n}` times. With no choice points, V8 does at
 * most `k` steps per start position — linear time — and for this subset RE2 and
 * ECMAScript agree on every atom, so the prefilter matches a file exactly when RE2 would.
 *
 * The first and the last atom may also carry a variable count (`+`, `*`, `?`, `{n,}`,
 * `{n,m}`): no atom matches a line break, so a line holds a match of `A{n,}rest` exactly
 * when it holds one of `A{n}rest` (drop the extra leading repeats of any match; the
 * converse is a match as it stands), and likewise at the end. Such an end is replaced by
 * its minimum count (an atom that may repeat zero times is dropped and the next one becomes
 * the end), which leaves a fixed-length, choice-free pattern. A variable count anywhere
 * else, or a pattern that reduces to nothing, returns null and re2js does the work.
 *
 * Because the reduced pattern holds for a line exactly when the original does, it also
 * serves as the per-line test of the windows it lets through (search.ts `searchLines`).
 *
 * Why: re2js scans literal-free patterns such as `[A-Z]{3}\d{4}` or `\w+\d` at
 * ~20–100 MB/s; V8 does the same subset at over 1 GB/s.
 *
 * @module
 */

const MAX_REPEAT = 256;
const MAX_ATOMS = 256;
const LITERAL = /[A-Za-z0-9 _\-:=,;'"<>@#%&!~`/]/;
const ESCAPABLE = /[.\\+*?()|[\]{}^$\-/#&~]/;
const CLASS_CHAR = /[A-Za-z0-9_]/;

/** A compiled prefilter: `test(text)` is true exactly when some line of `text` matches. */
export interface Prefilter {
  /** Whether the text contains a match. */
  test(text: string): boolean;
}

function readClass(p: string, i: number): { src: string; next: number } | null {
  // p[i] === "["
  let j = i + 1;
  if (p[j] === "^" || p[j] === "]") return null;
  let src = "[";
  while (j < p.length && p[j] !== "]") {
    if (p[j] === "\\" && (p[j + 1] === "d" || p[j + 1] === "w")) {
      src += `\\${p[j + 1]}`;
      j += 2;
    } else if (CLASS_CHAR.test(p[j]) && p[j + 1] === "-" && CLASS_CHAR.test(p[j + 2] ?? "")) {
      if (p[j] > p[j + 2]) return null;
      src += `${p[j]}-${p[j + 2]}`;
      j += 3;
    } else if (CLASS_CHAR.test(p[j])) {
      src += p[j];
      j += 1;
    } else return null;
  }
  if (p[j] !== "]" || src === "[") return null;
  return { src: `${src}]`, next: j + 1 };
}

function readAtom(p: string, i: number): { src: string; next: number } | null {
  const c = p[i];
  if (c === "[") return readClass(p, i);
  if (c === "\\") {
    const e = p[i + 1] ?? "";
    if (e === "d" || e === "w") return { src: `\\${e}`, next: i + 2 };
    if (ESCAPABLE.test(e)) return { src: `\\${e}`, next: i + 2 };
    return null;
  }
  if (LITERAL.test(c)) return { src: c === "/" ? "\\/" : c, next: i + 1 };
  return null;
}

/** One atom with its repeat count: `min` to `max` (`Infinity` for no upper bound). */
interface Counted {
  src: string;
  min: number;
  max: number;
}

/** The count after an atom at `i`: `{n}`, `{n,}`, `{n,m}`, `+`, `*`, `?` or none. */
function readCount(p: string, i: number): { min: number; max: number; next: number } | null {
  const c = p[i];
  if (c === "+") return { min: 1, max: Infinity, next: i + 1 };
  if (c === "*") return { min: 0, max: Infinity, next: i + 1 };
  if (c === "?") return { min: 0, max: 1, next: i + 1 };
  if (c !== "{") return { min: 1, max: 1, next: i };
  const m = /^\{(\d{1,3})(,(\d{1,3})?)?\}/.exec(p.slice(i, i + 9));
  if (!m) return null;
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : m[3] === undefined ? Infinity : Number(m[3]);
  if (min > MAX_REPEAT || max < min || (max !== Infinity && max > MAX_REPEAT)) return null;
  return { min, max, next: i + m[0].length };
}

/** Parse `pattern` into counted atoms; null when anything is outside the subset. */
function readAtoms(pattern: string): Counted[] | null {
  const atoms: Counted[] = [];
  for (let i = 0; i < pattern.length;) {
    const atom = readAtom(pattern, i);
    if (!atom) return null;
    const count = readCount(pattern, atom.next);
    if (!count) return null;
    // A lazy or possessive marker (`+?`, `*+`) or a second count is outside the subset.
    if (count.next < pattern.length && "+*?{".includes(pattern[count.next])) return null;
    i = count.next;
    atoms.push({ src: atom.src, min: count.min, max: count.max });
  }
  return atoms;
}

/**
 * Reduce variable counts at both ends to their minimum (dropping atoms that may repeat
 * zero times); null when a variable count remains inside or nothing remains.
 */
function reduceEnds(atoms: Counted[]): Counted[] | null {
  let lo = 0;
  let hi = atoms.length;
  while (lo < hi && atoms[lo].min !== atoms[lo].max && atoms[lo].min === 0) lo++;
  while (hi > lo && atoms[hi - 1].min !== atoms[hi - 1].max && atoms[hi - 1].min === 0) hi--;
  const kept = atoms.slice(lo, hi).map((a, k, all) =>
    k === 0 || k === all.length - 1 ? { ...a, max: a.min } : a
  );
  if (kept.length === 0 || kept.some((a) => a.min !== a.max || a.min < 1)) return null;
  return kept;
}

/**
 * Compile `pattern` (RE2 syntax) to a V8 prefilter when it is in the safe subset.
 *
 * @example
 * ```ts
 * import { compilePrefilter } from "./fast_prefilter.ts";
 * compilePrefilter("[A-Z]{3}\\d{4}")?.test("id ABC1234"); // true
 * compilePrefilter("\\w+\\d")?.test("v2"); // true: same as `\\w\\d` on a line
 * compilePrefilter("a+b+c"); // null: a variable count inside
 * ```
 */
export function compilePrefilter(pattern: string): Prefilter | null {
  const parsed = readAtoms(pattern);
  const atoms = parsed && reduceEnds(parsed);
  if (!atoms) return null;
  let src = "";
  let total = 0;
  for (const atom of atoms) {
    total += atom.min;
    if (total > MAX_ATOMS) return null;
    src += atom.min === 1 ? atom.src : `${atom.src}{${atom.min}}`;
  }
  const re = new RegExp(src);
  return { test: (text: string) => re.test(text) };
}
