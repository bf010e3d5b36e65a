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

import { cutUnits } from "../protocols/text_clean.ts";

/** Most code units of a path shown in a message. */
export const SHOWN_PATH_UNITS = 160;

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}`]/gu;

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
  const cut = p.length < path.length;
  const safe = p.replace(UNSAFE, (ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`);
  return `\`${safe}${cut ? "…" : ""}\``;
}
