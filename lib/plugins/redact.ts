/**
 * Redaction of registered values (protected values and anything else a plugin marks) from
 * results, error texts and log lines. Longer values are replaced first, so a value that
 * contains another is never partly revealed.
 *
 * A multi-line value is also matched in the one-line forms the odek renderer gives text
 * (`flattenLine` with ` ⏎ ` or a space; `lib/odek/render.ts`), and without its leading and
 * trailing line breaks. A JSON number whose decimal form is a registered value becomes the
 * string `[protected]`.
 *
 * @module
 */

import { flattenLine } from "../odek/render.ts";
import type { Block, ToolResult } from "../results/types.ts";

/** What a redacted value is replaced with. */
export const REDACTED = "[protected]";

/**
 * A set of values to redact.
 *
 * @example
 * ```ts
 * import { Redactor } from "./redact.ts";
 * const r = new Redactor();
 * r.add("s3cr3t-token");
 * r.text("token=s3cr3t-token"); // "token=[protected]"
 * ```
 */
export class Redactor {
  #values: string[] = [];

  /** Add a value (empty strings are ignored) and the forms it takes in rendered text. */
  add(value: string): void {
    if (typeof value !== "string" || value === "") return;
    for (const v of variants(value)) {
      if (v !== "" && !this.#values.includes(v)) this.#values.push(v);
    }
    this.#values.sort((a, b) => b.length - a.length);
  }

  /** Whether any value is registered. */
  get active(): boolean {
    return this.#values.length > 0;
  }

  /** Whether `s` contains a registered value. */
  leaks(s: string): boolean {
    return this.#values.some((v) => s.includes(v));
  }

  /** `s` with every registered value replaced. */
  text(s: string): string {
    if (!this.active) return s;
    let out = s;
    for (const v of this.#values) if (out.includes(v)) out = out.split(v).join(REDACTED);
    return out;
  }

  /** Whether a JSON number's decimal form is a registered value. */
  #number(v: unknown): boolean {
    return typeof v === "number" && this.#values.includes(String(v));
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
   * A result with text and json blocks redacted (images are left as they are); the same
   * object when nothing leaks. Strings are searched as they are, not in serialized JSON,
   * where a value holding `"`, `\` or a newline would appear escaped and slip through.
   */
  result(r: ToolResult): ToolResult {
    if (!this.active) return r;
    const leaking = r.content.some((b) =>
      b.type === "text" ? this.leaks(b.text) : b.type === "json" && this.jsonLeaks(b.data)
    );
    if (!leaking) return r;
    const content = r.content.map((b): Block => {
      if (b.type === "text") return { type: "text", text: this.text(b.text) };
      if (b.type === "json") return { type: "json", data: this.json(b.data) };
      return b;
    });
    return { content, isError: r.isError };
  }
}

/** Leading or trailing line breaks (as a program's output adds or drops them). */
const EDGE_BREAKS = /^[\r\n]+|[\r\n]+$/g;

function variants(value: string): string[] {
  const out = new Set<string>();
  for (const v of [value, value.replace(EDGE_BREAKS, "")]) {
    if (v === "") continue;
    out.add(v);
    out.add(flattenLine(v, " ⏎ "));
    out.add(flattenLine(v, " "));
  }
  return [...out];
}
