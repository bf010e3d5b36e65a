/**
 * Redacting the head of a stream that was cut where toolhost cannot see past: an
 * occurrence that ends in the kept part is replaced whole, and the last (longest form − 1)
 * units — where a value's first part could sit with the rest cut off — are dropped,
 * whatever they hold, so what is dropped never depends on the content.
 *
 * @module
 */

import type { Protector } from "./types.ts";

/**
 * The retained bytes of a stream, redacted; `cut` says the stream went on past them.
 * `extra` bytes more are held back at a cut (for a form the stream lengthens, as a diff
 * lengthens a multi-line value by its line prefixes).
 *
 * @example
 * ```ts
 * import { Redactor } from "./redactor.ts";
 * import { protectedHead } from "./head.ts";
 * const r = new Redactor();
 * r.add("tok-123456");
 * const head = new TextEncoder().encode("out tok-12");
 * // The last (longest form − 1) bytes may be a value's start: here that is all of it.
 * new TextDecoder().decode(protectedHead(r, head, true)); // ""
 * ```
 */
export function protectedHead(
  protect: Protector | undefined,
  bytes: Uint8Array,
  cut: boolean,
  extra = 0,
): Uint8Array {
  if (!protect?.active) return bytes;
  const hold = protect.maxBytes - 1 + extra;
  let keep = cut ? Math.max(0, bytes.byteLength - hold) : bytes.byteLength;
  while (keep > 0 && keep < bytes.byteLength && (bytes[keep] & 0xc0) === 0x80) keep--;
  return protect.bytes(bytes, 0, keep);
}

/**
 * The text of a stream's retained head, redacted like {@link protectedHead} (in UTF-16
 * units, never between the halves of a surrogate pair).
 *
 * @example
 * ```ts
 * import { Redactor } from "./redactor.ts";
 * import { protectedTextHead } from "./head.ts";
 * const r = new Redactor();
 * r.add("tok-123456");
 * protectedTextHead(r, "a tok-123456 b", false); // "a [protected] b"
 * ```
 */
export function protectedTextHead(
  protect: Protector | undefined,
  text: string,
  cut: boolean,
): string {
  if (!protect?.active) return text;
  let keep = cut ? Math.max(0, text.length - (protect.maxUnits - 1)) : text.length;
  const c = text.charCodeAt(keep);
  if (keep > 0 && keep < text.length && c >= 0xdc00 && c <= 0xdfff) keep--;
  return protect.window(text, 0, keep);
}
