/**
 * Cleaning a hook's deny reason before it reaches the model: registered values redacted
 * (as written and as shown), control characters and line breaks (C0, DEL, C1 with NEL, U+2028, U+2029) replaced by
 * one space each run — so a reason is always one line and can never forge a metadata
 * line — trimmed, and cut to at most 1000 UTF-16 units without splitting a surrogate pair.
 *
 * @module
 */

import type { Redactor } from "./redact.ts";
import { cutUnits } from "../text/text_clean.ts";

/** Longest deny reason passed to the model (UTF-16 code units, before the `…`). */
export const MAX_REASON_UNITS = 1000;

// deno-lint-ignore no-control-regex
const BREAKS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/**
 * A deny reason as the model may see it.
 *
 * @example
 * ```ts
 * import { cleanReason } from "./reason.ts";
 * import { Redactor } from "./redact.ts";
 * const r = new Redactor();
 * r.add("s3cr3t");
 * cleanReason(r, "bad s3cr3t\n[artifact] x"); // "bad [protected] [artifact] x"
 * ```
 */
export function cleanReason(redactor: Redactor, reason: string): string {
  // Redacted as written and again as shown: turning a tab or a line break into a space
  // can form a value that holds a space (`Bearer …`); both before the cut.
  const clean = redactor.text(redactor.text(reason).replace(BREAKS, " ")).trim();
  return clean.length > MAX_REASON_UNITS ? `${cutUnits(clean, MAX_REASON_UNITS)}…` : clean;
}
