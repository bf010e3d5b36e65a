/**
 * Where protected values sit in JSON source text, before it is parsed. Parsing rewrites
 * what is outside strings: a number with more digits than a double holds is rounded, so
 * `98765432109876543210` becomes `98765432109876540000` — most of a value, which no
 * redaction after the parse can recognise. A value inside a string token is safe to leave
 * to the redaction of the parsed strings (unescaping only re-forms it whole).
 *
 * A number need not spell a value to be rewritten into part of one: the parse drops a
 * number's point and exponent, so `9.8765432109876543210e19` (the value's digits, no
 * contiguous value in the source) comes out as `98765432109876540000`, and `1.234567891e9`
 * as `1234567891`. {@link heldBeforeParse} therefore also searches each number the parse
 * rewrites, as its digits and as what it becomes.
 *
 * @module
 */

import type { Range } from "./ranges.ts";
import type { Protector } from "./types.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether any of `ranges` (sorted, merged) of JSON source `text` is not wholly inside the
 * content of one string token (between its quotes).
 *
 * @example
 * ```ts
 * import { outsideStrings } from "./json_source.ts";
 * const text = '{"a":"xSECRETx","n":12345}';
 * outsideStrings(text, [[7, 13]]); // false: inside the string "xSECRETx"
 * outsideStrings(text, [[21, 25]]); // true: in the number
 * ```
 */
export function outsideStrings(text: string, ranges: readonly Range[]): boolean {
  let k = 0; // the first range not yet placed
  let open = -1; // index of the opening quote of the string the scan is in; -1 outside
  for (let i = 0; i < text.length && k < ranges.length; i++) {
    const c = text.charCodeAt(i);
    if (open < 0) {
      if (c !== QUOTE) continue;
      if (ranges[k][0] <= i) return true; // it starts outside every string
      open = i;
    } else if (c === BACKSLASH) {
      i++; // the escaped character (a `\uXXXX` escape's digits hold no quote)
    } else if (c === QUOTE) {
      for (; k < ranges.length && ranges[k][0] < i; k++) {
        if (ranges[k][1] > i) return true; // it runs past the closing quote
      }
      open = -1;
    }
  }
  return k < ranges.length;
}

const MINUS = 0x2d;

/** Whether every byte of `form` may appear in a number's digits or parsed form. */
function numeric(form: Uint8Array): boolean {
  for (const c of form) if (!numberUnit(c)) return false;
  return form.length > 0;
}
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/** Whether `c` may continue a JSON number token (digits, sign, point, exponent). */
function numberUnit(c: number): boolean {
  return (c >= DIGIT_0 && c <= DIGIT_9) || c === 0x2b || c === MINUS || c === 0x2e ||
    c === 0x45 || c === 0x65;
}

/**
 * For every number token outside the strings of JSON source `text` that parsing rewrites
 * (its shortest form differs from its source: a point or exponent dropped, digits
 * rounded), its digits in order (sign, point and exponent left out) and the form it
 * parses to.
 *
 * @example
 * ```ts
 * import { rewrittenNumbers } from "./json_source.ts";
 * rewrittenNumbers('{"a":1.2345e4,"b":"1.5e3","c":7}'); // ["12345", "12345"]
 * rewrittenNumbers("[-9.87e2, 1.50]"); // ["987", "-987", "150", "1.5"]
 * ```
 */
export function rewrittenNumbers(text: string): string[] {
  const out: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      continue;
    }
    if (c !== MINUS && (c < DIGIT_0 || c > DIGIT_9)) continue;
    let j = i + 1;
    while (j < text.length && numberUnit(text.charCodeAt(j))) j++;
    const token = text.slice(i, j);
    const shown = String(Number(token));
    if (shown !== token) out.push(token.replace(/[eE].*$/, "").replace(/[-.]/g, ""), shown);
    i = j - 1;
  }
  return out;
}

/**
 * Whether JSON source `text` must be held before it is parsed: a form of a value sits
 * outside its strings ({@link outsideStrings}), or a number the parse rewrites holds one
 * in its digits or in what it becomes ({@link rewrittenNumbers}) — either would come out
 * of the parse as a value, or most of one, that no later redaction recognises. False
 * whenever `p` has no value.
 *
 * @example
 * ```ts
 * import { heldBeforeParse } from "./json_source.ts";
 * import { Redactor } from "./redactor.ts";
 * const red = new Redactor();
 * red.add("98765432109876543210");
 * heldBeforeParse('{"n":9.8765432109876543210e19}', red); // true
 * heldBeforeParse('{"s":"98765432109876543210","n":1.5}', red); // false: left to redaction
 * ```
 */
export function heldBeforeParse(text: string, p: Protector): boolean {
  if (!p.active) return false;
  if (outsideStrings(text, p.ranges(text))) return true;
  // A rewritten number is made of digits, `.`, `e`, `+` and `-` only: unless a form of a
  // value is too, no number can hold one (and the text need not be scanned again).
  if (!p.needles().some(numeric)) return false;
  const numbers = rewrittenNumbers(text);
  return numbers.length > 0 && p.leaks(numbers.join("\u0000"));
}
