/**
 * Byte accounting for JSON results, so a result never exceeds the json block limit.
 *
 * @module
 */

export { jsonBytes } from "../results/json_text.ts";

/**
 * Whether the UTF-16 unit at `i` is the high half of a surrogate pair in `s`.
 *
 * @example
 * ```ts
 * import { isHighSurrogateAt } from "./json_size.ts";
 * isHighSurrogateAt("😀", 0); // true
 * ```
 */
export function isHighSurrogateAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  const next = s.charCodeAt(i + 1);
  return c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
}
