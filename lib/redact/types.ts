/**
 * What the layers that cut, window, search or spill need from the registry's protected
 * values (`Redactor` implements it). Every method works on the source before a cut, so a
 * cut never leaves a part of a value: an occurrence that overlaps what is kept is
 * replaced whole.
 *
 * @module
 */

/** What a redacted value is replaced with. */
export const REDACTED = "[protected]";

/** The registry's protected values, as cutting and searching code sees them. */
export interface Protector {
  /** Whether any value is registered (when false every method returns its input). */
  readonly active: boolean;
  /** UTF-16 units of the longest form of any value, split by line breaks too (0: none). */
  readonly maxUnits: number;
  /** UTF-8 bytes of the longest form of any value (0 when none). */
  readonly maxBytes: number;
  /** Most line breaks (`\n`) in one form of a value, split ones too (0: every form fits on a line). */
  readonly maxBreaks: number;
  /** The UTF-8 bytes of every form of every value (for byte scanners), longest first. */
  needles(): readonly Uint8Array[];
  /**
   * Where forms that line breaks split occur in the bytes `b` (sorted, merged): what a byte
   * scanner searching {@link Protector.needles} as literals cannot find (lib/redact/wrapped.ts).
   */
  splitByteRanges(b: Uint8Array): Array<[number, number]>;
  /**
   * Ranges of `s`, a text cut from a longer one at line breaks (a diff's hunk), that may be
   * the shown part of a form split by line breaks that the cuts go through (a tail that
   * begins one, a head that ends one, all of `s` from inside one).
   */
  splitEdges(s: string): Array<[number, number]>;
  /** Where forms of values occur in `s`: sorted, merged `[start, end)` ranges. */
  ranges(s: string): Array<[number, number]>;
  /** A JSON value with every string (keys too) redacted; numbers that are values too. */
  json(v: unknown): unknown;
  /**
   * UTF-16 units at the end of `s` that begin a form of a value without completing it (the
   * longest such tail; 0 when none): what a stream paused there may still turn into one.
   * With `ended` (nothing can follow), a tail only a line break at the end could go on
   * from (a form split by it) is none.
   */
  partialAtEnd(s: string, ended?: boolean): number;
  /** Whether `s` holds any form of a value. */
  leaks(s: string): boolean;
  /** `s` with every form of every value replaced by {@link REDACTED}. */
  text(s: string): string;
  /**
   * `s[start, end)` redacted, where `s` is the source around the window: an occurrence
   * that overlaps the window is replaced whole, even where it runs past an edge.
   */
  window(s: string, start: number, end: number): string;
  /**
   * Bytes `b[start, end)` redacted like {@link Protector.window}; `keepLines` follows
   * each replacement with as many `\n` as the occurrence held (line numbers stay true).
   * The same array when nothing was replaced.
   */
  bytes(b: Uint8Array, start?: number, end?: number, keepLines?: boolean): Uint8Array;
}
