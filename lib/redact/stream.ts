/**
 * Redacting a text that arrives in pieces (a spill file as it is written): each piece's
 * text is released only up to where no value could still be completed by what follows —
 * the last (longest form − 1) units are held back — so every occurrence is replaced
 * whole, however the pieces cut it. An occurrence that starts before the hold-back is
 * released whole, but the hold-back itself is kept even where that release covered it: a
 * second occurrence overlapping the first is then still found whole once complete (and
 * its part already out stays one marker). Memory stays bounded by one piece plus the
 * hold-back.
 *
 * @module
 */

import type { Range } from "./ranges.ts";
import { type Protector, REDACTED } from "./types.ts";

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
  /** The held-back text: the last (longest form − 1) units seen, never more. */
  #carry = "";
  /**
   * How many units at the start of {@link StreamingRedactor.#carry} were already released
   * (inside a replaced occurrence: the marker for them is out).
   */
  #released = 0;
  /** Whether what was released so far ends with a marker (one that a range after it joins). */
  #marked = false;

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
    const ranges = p.ranges(all);
    // An occurrence that starts before `keep` is complete (a form is never longer than the
    // hold-back plus one) and is released whole, even past `keep`. What follows `keep` is
    // held back all the same: an occurrence that starts inside the released part and is
    // not complete yet must be found whole later, and its part already out is marked.
    let end = Math.max(keep, this.#released);
    for (const [a, z] of ranges) if (a < keep && z > end) end = z;
    const out = this.#release(all, ranges, end);
    this.#carry = all.slice(keep);
    this.#released = end - keep;
    return out;
  }

  /**
   * Release what is held back, up to a tail that begins a value without completing it (the
   * stream pauses: what follows may still complete it, so that tail stays held). With
   * `ended` (nothing follows: the stream closes), a tail that ends with a line break is
   * released: only what came after it could have made it a value.
   */
  pause(ended = false): string {
    const p = this.#protect;
    if (!p) return "";
    const all = this.#carry;
    let keep = Math.max(this.#released, all.length - p.partialAtEnd(all, ended));
    const c = all.charCodeAt(keep);
    if (keep > this.#released && keep < all.length && c >= 0xdc00 && c <= 0xdfff) keep--;
    const ranges = p.ranges(all);
    let end = keep;
    for (const [a, z] of ranges) if (a < keep && z > end) end = z;
    const out = this.#release(all, ranges, end);
    this.#carry = all.slice(keep);
    this.#released = end - keep;
    return out;
  }

  /** The rest, at the end of the text. */
  end(): string {
    const rest = this.#carry;
    const out = this.#protect ? this.#release(rest, this.#protect.ranges(rest), rest.length) : rest;
    this.#carry = "";
    this.#released = 0;
    this.#marked = false;
    return out;
  }

  /**
   * `s[released, to)` with every range overlapping it replaced by one marker; a range that
   * starts before `released` (or right where a marker ended) gets none: its marker is out.
   */
  #release(s: string, ranges: readonly Range[], to: number): string {
    const from = this.#released;
    let out = "";
    let at = from;
    for (const [a, z] of ranges) {
      if (z < from || a >= to || (z === from && !this.#marked)) continue;
      if (a > at) out += s.slice(at, a);
      if (a > from || (a === from && !this.#marked)) out += REDACTED;
      at = Math.min(to, z);
      this.#marked = true;
    }
    if (at < to) this.#marked = false;
    return out + s.slice(at, to);
  }
}
