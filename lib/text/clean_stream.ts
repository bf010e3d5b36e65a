/**
 * Chunk-by-chunk form of the plain protocol's text cleaning (`decodeLossy` + `cleanText`):
 * UTF-8 is decoded as a stream (a sequence cut by a chunk boundary is completed by the
 * next chunk), and the text from the last escape character of a chunk is held back until
 * the next one, so an escape sequence cut in two is still removed whole. Memory stays
 * bounded by one chunk plus at most {@link MAX_CARRY} held-back characters.
 *
 * @module
 */

import { cleanText } from "./text_clean.ts";

/**
 * Most characters held back from one chunk to the next (an escape sequence's start).
 *
 * @example
 * ```ts
 * import { MAX_CARRY } from "./clean_stream.ts";
 * MAX_CARRY; // 4096
 * ```
 */
export const MAX_CARRY = 4096;

/** The start of an escape sequence that more characters may still complete. */
// deno-lint-ignore no-control-regex
const INCOMPLETE_ESCAPE = /^\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*)?$/;

/**
 * A streaming cleaner.
 *
 * @example
 * ```ts
 * import { StreamingCleaner } from "./clean_stream.ts";
 * const c = new StreamingCleaner();
 * const out = c.push(new TextEncoder().encode("red\x1b[3")) + c.push(new TextEncoder().encode("1mX\r\n")) + c.end();
 * console.log(out); // "redX\n"
 * c.push(new TextEncoder().encode("a\x1b[0mb")) + c.pause(); // "ab"
 * ```
 */
export class StreamingCleaner {
  readonly #decoder = new TextDecoder("utf-8");
  #carry = "";

  /** Clean the next chunk; returns the text that is final so far. */
  push(chunk: Uint8Array): string {
    const text = this.#carry + this.#decoder.decode(chunk, { stream: true });
    const esc = text.lastIndexOf("\x1b");
    if (esc < 0 || text.length - esc > MAX_CARRY) {
      this.#carry = "";
      return cleanText(text);
    }
    this.#carry = text.slice(esc);
    return cleanText(text.slice(0, esc));
  }

  /**
   * What is held back, cleaned, unless it is an escape sequence still incomplete (what
   * follows may complete it: it stays held). A character cut by the pause stays held in the
   * decoder too.
   */
  pause(): string {
    if (INCOMPLETE_ESCAPE.test(this.#carry)) return "";
    const text = this.#carry;
    this.#carry = "";
    return cleanText(text);
  }

  /** The rest, at the end of the stream. */
  end(): string {
    const text = this.#carry + this.#decoder.decode();
    this.#carry = "";
    return cleanText(text);
  }
}
