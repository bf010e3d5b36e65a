/**
 * Sorting by the UTF-8 bytes of a string — the order of the directory pin's manifest and of
 * its walk — without encoding every string when that order is already JavaScript's.
 *
 * UTF-16 code-unit order (JavaScript's `<`) equals UTF-8 byte order for any strings whose
 * characters are all below U+D800: there code units are code points, and UTF-8 preserves
 * code-point order. Only a surrogate pair against U+E000–U+FFFF can disagree, so a list
 * holding any character from U+D800 up is sorted by encoded bytes instead.
 *
 * @module
 */

import { Buffer } from "node:buffer";

const NOT_CODE_POINT_ORDERED = /[\uD800-\uFFFF]/;

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Sort `items` in place by the UTF-8 bytes of `key(item)` and return them.
 *
 * @example
 * ```ts
 * import { sortByUtf8 } from "./utf8_order.ts";
 * sortByUtf8(["b/c", "b-c", "\u{1F600}", "\uFFFD"], (s) => s); // ["b-c", "b/c", "\uFFFD", "😀"]
 * ```
 */
export function sortByUtf8<T>(items: T[], key: (item: T) => string): T[] {
  let plain = true;
  for (const item of items) {
    if (NOT_CODE_POINT_ORDERED.test(key(item))) {
      plain = false;
      break;
    }
  }
  if (plain) return items.sort((a, b) => byCodeUnits(key(a), key(b)));
  const keyed = items.map((item) => ({ item, bytes: Buffer.from(key(item), "utf8") }));
  keyed.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  for (let i = 0; i < keyed.length; i++) items[i] = keyed[i].item;
  return items;
}
