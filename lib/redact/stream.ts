/**
 * Redacting a text that arrives in pieces (a spill file as it is written): each piece's
 * text is released only up to where no value could still be completed by what follows —
 * the last (longest form − 1) units are held back — so every occurrence is replaced
 * whole, however the pieces cut it. Memory stays bounded by one piece plus the hold-back.
 *
 * @module
 */

import type { Protector } from "./types.ts";

/**
 * A streaming redactor.
 *
 * @example
 * ```ts
 * import { Redactor } from "./redactor.ts";
 * import { StreamingRedactor } from "./stream.ts";
 * const r = new Redactor();
 * r.add("tok-123456");
 * const s = new StreamingRedactor(r);
 * s.push("a tok-12") + s.push("3456 b") + s.end(); // "a [protected] b"
 * ```
 */
export class StreamingRedactor {
  readonly #protect: Protector | undefined;
  #carry = "";

  /** Redact with `protect` (nothing is held back when it is absent or inactive). */
  constructor(protect: Protector | undefined) {
    this.#protect = protect?.active ? protect : undefined;
  }

  /** The next piece; returns the text that is final so far. */
  push(text: string): string {
    const p = this.#protect;
    if (!p) return text;
    const all = this.#carry + text;
    let keep = Math.max(0, all.length - (p.maxUnits - 1));
    const c = all.charCodeAt(keep);
    if (keep > 0 && keep < all.length && c >= 0xdc00 && c <= 0xdfff) keep--;
    // An occurrence that starts before `keep` is released whole (its end is known: a
    // form is never longer than the hold-back plus one).
    let end = keep;
    for (const [a, z] of p.ranges(all)) if (a < keep && z > end) end = z;
    this.#carry = all.slice(end);
    return p.window(all, 0, end);
  }

  /** The rest, at the end of the text. */
  end(): string {
    const rest = this.#carry;
    this.#carry = "";
    return this.#protect ? this.#protect.text(rest) : rest;
  }
}
