/**
 * Where protected values sit in JSON source text, before it is parsed. Parsing rewrites
 * what is outside strings: a number with more digits than a double holds is rounded, so
 * `98765432109876543210` becomes `98765432109876540000` — most of a value, which no
 * redaction after the parse can recognise. A value inside a string token is safe to leave
 * to the redaction of the parsed strings (unescaping only re-forms it whole).
 *
 * @module
 */

import type { Range } from "./ranges.ts";

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
