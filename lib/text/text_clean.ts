/**
 * Turning arbitrary process output into clean, bounded text: lossy UTF-8 decoding
 * (invalid bytes become U+FFFD), removal of terminal escape sequences and control
 * characters (newline and tab are kept; carriage returns are removed, so CRLF becomes LF),
 * and a byte cap with an explicit truncation marker.
 *
 * @module
 */

import { Buffer } from "node:buffer";

/** The marker appended to truncated text. */
export const TRUNCATION_MARKER = "\n[output truncated at 64 KiB]";

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), and two-character ESC sequences.
// deno-lint-ignore no-control-regex
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]/g;
// Unicode Cc except TAB (09) and LF (0A).
// deno-lint-ignore no-control-regex
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * Remove terminal escape sequences and control characters except `\n` and `\t`.
 *
 * @example
 * ```ts
 * import { cleanText } from "./text_clean.ts";
 * cleanText("\x1b[31mred\x1b[0m\r\n\x07ok\tdone"); // "red\nok\tdone"
 * ```
 */
export function cleanText(text: string): string {
  return text.replace(ESCAPES, "").replace(CONTROLS, "");
}

/**
 * Decode bytes lossily. With `partial`, an incomplete trailing UTF-8 sequence (cut by a
 * byte cap) is dropped instead of becoming U+FFFD. A leading BOM is dropped.
 *
 * @example
 * ```ts
 * import { decodeLossy } from "./text_clean.ts";
 * decodeLossy(new Uint8Array([0x61, 0xff, 0x62])); // "a\uFFFDb"
 * ```
 */
export function decodeLossy(bytes: Uint8Array, partial = false): string {
  return new TextDecoder("utf-8").decode(bytes, { stream: partial });
}

/**
 * Cap `text` at `maxBytes` UTF-8 bytes, marker included, cutting on a character
 * boundary. `truncated` forces the marker (the input was already cut upstream).
 *
 * @example
 * ```ts
 * import { capText } from "./text_clean.ts";
 * capText("abc", 65536); // "abc"
 * capText("x".repeat(70000), 65536).endsWith("[output truncated at 64 KiB]"); // true
 * ```
 */
export function capText(text: string, maxBytes: number, truncated = false): string {
  if (!truncated && Buffer.byteLength(text, "utf8") <= maxBytes) return text;
  const markerBytes = Buffer.byteLength(TRUNCATION_MARKER, "utf8");
  return utf8Head(text, Math.max(0, maxBytes - markerBytes)) + TRUNCATION_MARKER;
}

/**
 * `s` cut to at most `max` UTF-16 units, never between the halves of a surrogate pair.
 *
 * @example
 * ```ts
 * import { cutUnits } from "./text_clean.ts";
 * cutUnits("ab😀", 3); // "ab"
 * ```
 */
export function cutUnits(s: string, max: number): string {
  if (s.length <= max) return s;
  const last = s.charCodeAt(max - 1);
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/**
 * The longest prefix of `text` of at most `max` UTF-8 bytes, cut on a character boundary.
 *
 * @example
 * ```ts
 * import { utf8Head } from "./text_clean.ts";
 * utf8Head("héllo", 2); // "h"
 * ```
 */
export function utf8Head(text: string, max: number): string {
  const b = Buffer.from(text, "utf8");
  if (b.length <= max) return text;
  let end = max;
  while (end > 0 && (b[end] & 0xc0) === 0x80) end--;
  return b.subarray(0, end).toString("utf8");
}

/** Format characters (zero-width, bidirectional controls): a terminal draws none of them. */
const FORMAT = /\p{Cf}/gu;

/**
 * `text` without Unicode format characters.
 *
 * @example
 * ```ts
 * import { withoutFormat } from "./text_clean.ts";
 * withoutFormat("to\u200bk-12\u20603456"); // "tok-123456"
 * ```
 */
export function withoutFormat(text: string): string {
  return text.replace(FORMAT, "");
}
