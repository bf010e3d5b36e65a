/**
 * Keeping a result within the 512 KiB cap of one json block: a running byte count that
 * stops a traversal once the items alone pass the cap, a final fit that keeps the longest
 * prefix of the items whose whole result (compact JSON, UTF-8) stays within it, and a cut
 * of a string to a budget of escaped JSON bytes.
 *
 * @module
 */

import { jsonBytes } from "../results/json_text.ts";

/**
 * The warning of a result cut at the json block cap.
 *
 * @example
 * ```ts
 * import { cutWarning } from "./json_budget.ts";
 * cutWarning(524288); // "the result was cut at 524288 bytes of JSON; narrow …"
 * ```
 */
export function cutWarning(maxBytes: number): string {
  return `the result was cut at ${maxBytes} bytes of JSON; narrow the path, depth or pattern`;
}

/**
 * Running compact-JSON size of items collected for one array (each item plus its comma).
 *
 * @example
 * ```ts
 * import { ItemBytes } from "./json_budget.ts";
 * const b = new ItemBytes(10);
 * b.add({ a: 1 }); // true: 7 bytes so far
 * b.add({ a: 2 }); // false: 15 bytes is over 10
 * ```
 */
export class ItemBytes {
  /** Bytes counted so far. */
  bytes = 0;
  #count = 0;
  readonly #max: number;

  /** Count against `max` bytes. */
  constructor(max: number) {
    this.#max = max;
  }

  /** Count one more item; false once the items alone exceed the cap. */
  add(item: unknown): boolean {
    this.bytes += jsonBytes(item) + (this.#count > 0 ? 1 : 0);
    this.#count++;
    return this.bytes <= this.#max;
  }
}

/** What {@link fitPrefix} kept. */
export interface Fitted<T> {
  /** The longest prefix that fits. */
  items: T[];
  /** Whether items were dropped to fit. */
  cut: boolean;
}

/**
 * The longest prefix of `items` for which `shape(prefix, cut)` — the whole result, with
 * the prefix as one of its arrays — is at most `max` bytes of compact JSON. `shape` is
 * called with `cut = false` for the full list and, when that is too large, with
 * `cut = true` (so it can say so: `truncated: true`, a warning) for a proper prefix —
 * even where the cut shape happens to be smaller than the full one.
 *
 * @example
 * ```ts
 * import { fitPrefix } from "./json_budget.ts";
 * fitPrefix(["aa", "bb", "cc"], (xs, cut) => ({ xs, cut }), 24);
 * // { items: ["aa"], cut: true }  ({"xs":["aa"],"cut":true} is 24 bytes)
 * ```
 */
export function fitPrefix<T>(
  items: T[],
  shape: (kept: T[], cut: boolean) => unknown,
  max: number,
): Fitted<T> {
  if (jsonBytes(shape(items, false)) <= max) return { items, cut: false };
  let budget = max - jsonBytes(shape([], true));
  let n = 0;
  for (; n < items.length - 1; n++) { // a cut result always drops at least one item
    const cost = jsonBytes(items[n]) + (n > 0 ? 1 : 0);
    if (cost > budget) break;
    budget -= cost;
  }
  return { items: items.slice(0, n), cut: true };
}

/** Escaped JSON bytes of one UTF-16 unit `c` (a lone surrogate: `\uXXXX`). */
function escapedWidth(c: number): number {
  if (c === 0x22 || c === 0x5c) return 2;
  if (c < 0x20) return c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdfff) return 6;
  return 3;
}

/**
 * The longest prefix of `text` (never inside a surrogate pair) whose JSON string literal
 * has at most `maxBytes` UTF-8 bytes between its quotes.
 *
 * @example
 * ```ts
 * import { fitJsonText } from "./json_budget.ts";
 * fitJsonText("a\u0001b", 6); // "a" — \u0001 alone takes 6 bytes
 * ```
 */
export function fitJsonText(text: string, maxBytes: number): string {
  let used = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const d = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    const pair = c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff;
    const w = pair ? 4 : escapedWidth(c);
    if (used + w > maxBytes) break;
    used += w;
    i += pair ? 2 : 1;
  }
  return text.slice(0, i);
}
