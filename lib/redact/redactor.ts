/**
 * A set of protected values and every form they take ({@link valueForms}), with the
 * operations that replace them: in a text, in a window of a source (an occurrence the
 * window cuts is replaced whole), in bytes, and in JSON values.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { valueForms } from "./forms.ts";
import {
  byteRanges,
  byteString,
  type Range,
  spliceBytes,
  spliceText,
  textRanges,
} from "./ranges.ts";
import { redactResult } from "./result.ts";
import { type Protector, REDACTED } from "./types.ts";
import type { ToolResult } from "../results/types.ts";

const MARKER_BYTES = new TextEncoder().encode(REDACTED);

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
  #forms: string[] = [];
  #formBytes: string[] = []; // UTF-8 bytes of each form, one character per byte
  #formUtf8: Uint8Array[] = [];
  #maxUnits = 0;
  #maxBytes = 0;
  #maxBreaks = 0;

  /** Add a value (empty strings are ignored) and the forms it takes in handed-out text. */
  add(value: string): void {
    if (typeof value !== "string" || value === "" || this.#values.has(value)) return;
    this.#values.add(value);
    const forms = new Set(this.#forms);
    for (const f of valueForms(value)) forms.add(f);
    this.#forms = [...forms].sort((a, b) => b.length - a.length);
    this.#formUtf8 = this.#forms.map((f) => new TextEncoder().encode(f));
    this.#formBytes = this.#formUtf8.map((b) => byteString(b));
    this.#maxUnits = this.#forms[0]?.length ?? 0;
    this.#maxBytes = Math.max(0, ...this.#formBytes.map((b) => b.length));
    this.#maxBreaks = Math.max(0, ...this.#forms.map((f) => f.split("\n").length - 1));
  }

  /** Whether any value is registered. */
  get active(): boolean {
    return this.#forms.length > 0;
  }

  /** UTF-16 units of the longest form. */
  get maxUnits(): number {
    return this.#maxUnits;
  }

  /** UTF-8 bytes of the longest form. */
  get maxBytes(): number {
    return this.#maxBytes;
  }

  /** Most line breaks in one form. */
  get maxBreaks(): number {
    return this.#maxBreaks;
  }

  /** The UTF-8 bytes of every form, longest first. */
  needles(): readonly Uint8Array[] {
    return this.#formUtf8;
  }

  /** Where forms of values occur in `s` (merged ranges). */
  ranges(s: string): Range[] {
    return this.active ? textRanges(s, this.#forms) : [];
  }

  /** Where forms of values occur in `b` (merged byte ranges). */
  byteRanges(b: Uint8Array): Range[] {
    return this.active ? byteRanges(b, this.#formBytes) : [];
  }

  /** Whether `s` contains any form of a registered value. */
  leaks(s: string): boolean {
    return this.#forms.some((v) => s.includes(v));
  }

  /** Whether `b` contains the UTF-8 bytes of any form of a registered value. */
  leaksBytes(b: Uint8Array): boolean {
    const hay = byteString(b);
    return this.#formBytes.some((v) => hay.includes(v));
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

  /** Whether a JSON number's decimal form is a registered value. */
  #number(v: unknown): boolean {
    return typeof v === "number" && this.#values.has(String(v));
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

  /** Whether a JSON value holds a registered value in any string (keys included) or number. */
  jsonLeaks(v: unknown): boolean {
    if (typeof v === "string") return this.leaks(v);
    if (this.#number(v)) return true;
    if (Array.isArray(v)) return v.some((x) => this.jsonLeaks(x));
    if (typeof v === "object" && v !== null) {
      return Object.entries(v).some(([k, x]) => this.leaks(k) || this.jsonLeaks(x));
    }
    return false;
  }

  /**
   * A result with every form of every value removed (see `redactResult`): consecutive
   * text blocks as one text, json blocks string by string, images withheld, the
   * serialized result checked last. The same object when nothing leaks.
   */
  result(r: ToolResult): ToolResult {
    return redactResult(this, r);
  }
}
