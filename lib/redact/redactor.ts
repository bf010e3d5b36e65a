/**
 * A set of protected values and every form they take ({@link valueForms}), with the
 * operations that replace them: in a text, in a window of a source (an occurrence the
 * window cuts is replaced whole), in bytes, and in JSON values.
 *
 * @module
 */

import { valueForms } from "./forms.ts";
import { byteString, mergeRanges, type Range, spliceBytes, spliceText } from "./ranges.ts";
import { Matcher } from "./matcher.ts";
import { SplitMatcher } from "./wrapped.ts";
import { redactResult } from "./result.ts";
import { type Protector, REDACTED } from "./types.ts";
import type { ToolResult } from "../results/types.ts";

const MARKER_BYTES = new TextEncoder().encode(REDACTED);
/** Most errors of a `cause` chain {@link Redactor.error} redacts (a chain may loop). */
const MAX_CAUSES = 16;
/** A JSON number literal. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A set of values to redact.
 *
 * @example
 * ```ts
 * import { Redactor } from "./redactor.ts";
 * const r = new Redactor();
 * r.add("s3cr3t-token");
 * r.text("token=s3cr3t-token"); // "token=[protected]"
 * r.window("token=s3cr3t-token", 0, 10); // "token=[protected]": the cut part goes whole
 * ```
 */
export class Redactor implements Protector {
  #values = new Set<string>();
  /** Values written as JSON numbers, as the doubles they parse to (rounding included). */
  #numbers = new Set<number>();
  #pending = new Set<string>(); // forms added since the last compile
  #compiled?: Compiled;
  /** Results this redactor handed out: passing one through again costs nothing. */
  #clean = new WeakSet<ToolResult>();

  /** Add a value (empty strings are ignored) and the forms it takes in handed-out text. */
  add(value: string): void {
    if (typeof value !== "string" || value === "" || this.#values.has(value)) return;
    this.#values.add(value);
    const trimmed = value.trim();
    if (JSON_NUMBER.test(trimmed)) this.#numbers.add(Number(trimmed));
    for (const f of valueForms(value)) this.#pending.add(f);
    this.#compiled = undefined; // compiled once, on first use: adding n values stays O(n)
    this.#clean = new WeakSet(); // a result clean of the old values may hold the new one
  }

  get #c(): Compiled {
    this.#compiled ??= compile(this.#pending);
    return this.#compiled;
  }

  /** Whether any value is registered. */
  get active(): boolean {
    return this.#values.size > 0;
  }

  /** UTF-16 units of the longest form. */
  get maxUnits(): number {
    return this.#c.maxUnits;
  }

  /** UTF-8 bytes of the longest form. */
  get maxBytes(): number {
    return this.#c.maxBytes;
  }

  /** Most line breaks in one form. */
  get maxBreaks(): number {
    return this.#c.maxBreaks;
  }

  /** The UTF-8 bytes of every form, longest first. */
  needles(): readonly Uint8Array[] {
    return this.#c.utf8;
  }

  /** Where forms of values occur in `s` (merged ranges), split by line breaks too. */
  ranges(s: string): Range[] {
    if (!this.active) return [];
    const c = this.#c;
    const split = c.split.ranges(s);
    return split.length === 0 ? c.text.ranges(s) : mergeRanges([...c.text.ranges(s), ...split]);
  }

  /** Where forms of values occur in `b` (merged byte ranges), split by line breaks too. */
  byteRanges(b: Uint8Array): Range[] {
    if (!this.active) return [];
    const c = this.#c;
    const latin = byteString(b);
    const split = c.split.ranges(latin);
    return split.length === 0
      ? c.bytes.ranges(latin)
      : mergeRanges([...c.bytes.ranges(latin), ...split]);
  }

  /**
   * Where forms that line breaks split occur in `b` (merged byte ranges): what a byte
   * scanner searching {@link Redactor.needles} as literals cannot find.
   */
  splitByteRanges(b: Uint8Array): Range[] {
    return this.active ? this.#c.split.splitRanges(byteString(b)) : [];
  }

  /** Parts of `s`, a text cut at line breaks, that may be a split form the cuts go through. */
  splitEdges(s: string): Range[] {
    return this.active ? this.#c.split.cutEdges(s) : [];
  }

  /** Units at the end of `s` that begin a form without completing it (longest; 0: none). */
  partialAtEnd(s: string, ended = false): number {
    if (!this.active) return 0;
    let best = 0;
    for (const f of this.#c.forms) {
      for (let n = Math.min(f.length - 1, s.length); n > best; n--) {
        if (s.endsWith(f.slice(0, n))) {
          best = n;
          break;
        }
      }
    }
    return Math.max(best, this.#c.split.partialAtEnd(s, ended));
  }

  /** Whether `s` contains any form of a registered value. */
  leaks(s: string): boolean {
    return this.active && (this.#c.text.has(s) || this.#c.split.has(s));
  }

  /** Whether `b` contains the UTF-8 bytes of any form of a registered value. */
  leaksBytes(b: Uint8Array): boolean {
    if (!this.active) return false;
    const latin = byteString(b);
    return this.#c.bytes.has(latin) || this.#c.split.has(latin);
  }

  /** `s` with every form of every registered value replaced. */
  text(s: string): string {
    return this.window(s, 0, s.length);
  }

  /** `s[start, end)`, an occurrence overlapping the window replaced whole. */
  window(s: string, start: number, end: number): string {
    const ranges = this.ranges(s);
    if (ranges.length === 0) return start === 0 && end === s.length ? s : s.slice(start, end);
    return spliceText(s, ranges, start, end, REDACTED);
  }

  /** Bytes `b[start, end)` redacted (see {@link Protector.bytes}). */
  bytes(b: Uint8Array, start = 0, end = b.byteLength, keepLines = false): Uint8Array {
    const ranges = this.byteRanges(b);
    if (ranges.length === 0) {
      return start === 0 && end === b.byteLength ? b : b.subarray(start, end);
    }
    return spliceBytes(b, ranges, start, end, MARKER_BYTES, keepLines);
  }

  /**
   * Whether a JSON number is a registered value: its decimal form is one, or it is the
   * double a value written as a number parses to (a long one is rounded: its shown form
   * is another text, still most of the value).
   */
  #number(v: unknown): boolean {
    return typeof v === "number" && (this.#numbers.has(v) || this.#values.has(String(v)));
  }

  /**
   * A JSON value with every string (keys included) redacted, and every number whose
   * decimal form is a registered value replaced by the string `[protected]`.
   */
  json(v: unknown): unknown {
    if (typeof v === "string") return this.text(v);
    if (this.#number(v)) return REDACTED;
    if (Array.isArray(v)) return v.map((x) => this.json(x));
    if (typeof v === "object" && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[this.text(k)] = this.json(x);
      return out;
    }
    return v;
  }

  /**
   * Whether a JSON value holds a registered value in any string (keys included) or number.
   * The strings are searched joined (one pass per form, however many strings there are);
   * a form that only appears across two of them costs a needless redaction pass, no more.
   */
  jsonLeaks(v: unknown): boolean {
    if (!this.active) return false;
    const strings: string[] = [];
    let number = false;
    const walk = (x: unknown): void => {
      if (typeof x === "string") strings.push(x);
      else if (this.#number(x)) number = true;
      else if (Array.isArray(x)) x.forEach(walk);
      else if (typeof x === "object" && x !== null) {
        for (const [k, y] of Object.entries(x)) {
          strings.push(k);
          walk(y);
        }
      }
    };
    walk(v);
    return number || this.leaks(strings.join("\u0000"));
  }

  /**
   * A result with every form of every value removed (see `redactResult`): consecutive
   * text blocks as one text, json blocks string by string, images withheld, the
   * serialized result checked last. The same object when nothing leaks.
   */
  result(r: ToolResult): ToolResult {
    if (!this.active || this.#clean.has(r)) return r;
    const out = redactResult(this, r);
    this.#clean.add(out);
    return out;
  }

  /**
   * `e` with its message redacted when it is an `Error` holding a value (a caller may put
   * the message in a result, as MCP does for toolhost's typed errors); `e` itself. Its
   * `stack` too — it repeats the message as it was made, and is what `console.error(e)`,
   * `util.inspect` and `TOOLHOST_DEBUG` print — and the errors of its `cause` chain.
   */
  error<T>(e: T): T {
    let x: unknown = e;
    for (let depth = 0; x instanceof Error && depth < MAX_CAUSES; depth++, x = x.cause) {
      if (this.leaks(x.message)) x.message = this.text(x.message);
      if (typeof x.stack === "string" && this.leaks(x.stack)) x.stack = this.text(x.stack);
    }
    return e;
  }
}

/** The forms of every value, compiled for searching. */
interface Compiled {
  forms: string[]; // longest first
  text: Matcher; // the forms `split` does not search
  bytes: Matcher; // the same, over byteString(bytes): UTF-8 bytes, one character per byte
  split: SplitMatcher; // the forms line breaks may split (ASCII: the same in both)
  utf8: Uint8Array[];
  maxUnits: number;
  maxBytes: number;
  maxBreaks: number;
}

function compile(forms: Set<string>): Compiled {
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  const utf8 = sorted.map((f) => new TextEncoder().encode(f));
  // The forms a line break may split are searched by `split` alone, whole ones too.
  const whole = sorted.filter((f) => !SplitMatcher.takes(f));
  const split = new SplitMatcher(sorted);
  return {
    forms: sorted,
    text: new Matcher(whole),
    bytes: new Matcher(whole.map((f) => byteString(new TextEncoder().encode(f)))),
    split,
    utf8,
    maxUnits: Math.max(sorted[0]?.length ?? 0, split.maxUnits),
    maxBytes: Math.max(0, split.maxUnits, ...utf8.map((b) => b.byteLength)),
    maxBreaks: Math.max(split.maxBreaks, ...sorted.map((f) => f.split("\n").length - 1)),
  };
}
