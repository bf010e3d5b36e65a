/**
 * How a logical path (an agent's argument) appears in a message: in backticks, with every
 * character that could hide or rearrange text escaped — controls, format characters
 * (bidirectional overrides, zero-width), line and paragraph separators, private-use,
 * unassigned and lone surrogates, and the backtick itself, which would end the quote — and
 * cut after 160 UTF-16 code units. The path still says where; it can no longer carry
 * instructions or spoof the rest of the message.
 *
 * @module
 */

import { cutUnits } from "../text/text_clean.ts";

/** Most code units of a path shown in a message. */
export const SHOWN_PATH_UNITS = 160;

/** Characters that could hide or rewrite text, the backtick aside (it only matters in quotes). */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}]/gu;
const UNSAFE_QUOTED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}`]/gu;

/**
 * Printable ASCII: none of it is a control, format, separator, private-use, unassigned or
 * surrogate character, so such text skips the Unicode scan (whose first use builds ICU's
 * property sets: ~1% of `tools check`'s start-up) unless it holds a backtick to escape.
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function escaped(text: string, unsafe: RegExp): string {
  if (PRINTABLE_ASCII.test(text) && (unsafe === UNSAFE || !text.includes("`"))) return text;
  return text.replace(unsafe, (ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`);
}

/**
 * `text` with every character that could hide or rewrite text escaped as `\u{…}`, cut
 * after `max` UTF-16 code units (with `…`) when given — for text shown unquoted, such as a
 * manifest key path or a whole message.
 *
 * @example
 * ```ts
 * import { escapeShown } from "./show_path.ts";
 * escapeShown("artifacts.a\u001b[2J"); // "artifacts.a\\u{1b}[2J"
 * ```
 */
export function escapeShown(text: string, max = Number.POSITIVE_INFINITY): string {
  const cut = cutUnits(text, max);
  return `${escaped(cut, UNSAFE)}${cut.length < text.length ? "…" : ""}`;
}

/**
 * A path quoted for a message.
 *
 * @example
 * ```ts
 * import { showPath } from "./show_path.ts";
 * showPath("docs/a.md"); // "`docs/a.md`"
 * showPath("a\u202Eb"); // "`a\\u{202e}b`"
 * ```
 */
export function showPath(path: string): string {
  const p = cutUnits(path, SHOWN_PATH_UNITS);
  return `\`${escaped(p, UNSAFE_QUOTED)}${p.length < path.length ? "…" : ""}\``;
}
