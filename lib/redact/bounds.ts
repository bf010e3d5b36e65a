/**
 * The result bounds, kept after redaction: `[protected]` is 11 characters, so replacing
 * a shorter value (or the number it is) grows a result that was within its bounds. A
 * redacted text block over 64 KiB is cut with the truncation marker (the text holds no
 * value any more, so the cut cannot leave part of one); a json block over 512 KiB or a
 * result over 8 MiB withholds the result.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { capText } from "../text/text_clean.ts";
import { jsonBytes, resultBytes } from "../results/json_text.ts";
import { errorResult, LIMITS, type ToolResult } from "../results/types.ts";

/** The error that replaces a result redaction grew past its bounds. */
export const WITHHELD_BOUNDS = "The result was withheld: with its protected values replaced it " +
  "exceeds the result bounds (512 KiB per json block, 8 MiB in all).";

/**
 * `r` (a redacted result) within the result bounds again; the same object when it is.
 *
 * @example
 * ```ts
 * import { boundRedacted } from "./bounds.ts";
 * const r = { content: [{ type: "text" as const, text: "[protected]" }], isError: false };
 * boundRedacted(r) === r; // true
 * ```
 */
export function boundRedacted(r: ToolResult): ToolResult {
  let capped = false;
  const content = r.content.map((b) => {
    if (b.type !== "text" || Buffer.byteLength(b.text, "utf8") <= LIMITS.maxTextBytes) return b;
    capped = true;
    return { type: "text" as const, text: capText(b.text, LIMITS.maxTextBytes) };
  });
  const out = capped ? { content, isError: r.isError } : r;
  const bigJson = out.content.some((b) =>
    b.type === "json" && jsonBytes(b.data) > LIMITS.maxJsonBytes
  );
  if (bigJson || resultBytes(out) > LIMITS.maxResultBytes) return errorResult(WITHHELD_BOUNDS);
  return out;
}
