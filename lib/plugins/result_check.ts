/**
 * Re-validation of results that `afterCall` hooks hand back: the same closed shapes and
 * output limits as json-protocol tool output (1–32 blocks, 64 KiB text, 512 KiB json,
 * admitted images, 8 MiB in all), via lib/protocols. Images must be embedded (`data`):
 * a hook has no output directory.
 *
 * @module
 */

import { normalizeJsonValue } from "../protocols/json_output.ts";
import { checkBlock, checkResultShape } from "../protocols/json_validate.ts";
import type { ToolResult } from "../results/types.ts";

/** Outcome of {@link checkReplacement}. */
export type ReplacementCheck = { ok: true; result: ToolResult } | { ok: false; rule: string };

const NO_OUTPUT_DIR = "/nonexistent/toolhost-hook-has-no-output-dir";

/**
 * Validate and normalize a replacement result.
 *
 * @example
 * ```ts
 * import { checkReplacement } from "./result_check.ts";
 * const r = await checkReplacement({ content: [{ type: "text", text: "ok" }], isError: false });
 * console.log(r.ok); // true
 * ```
 */
export async function checkReplacement(value: unknown): Promise<ReplacementCheck> {
  const shape = checkResultShape(value);
  if (!shape.ok) return { ok: false, rule: shape.rule };
  for (let i = 0; i < shape.blocks.length; i++) {
    const b = checkBlock(shape.blocks[i], i);
    if (!b.ok) return { ok: false, rule: b.rule };
    if ("image" in b && b.image.path !== undefined) {
      return {
        ok: false,
        rule: `content block ${i + 1}: images from hooks must be embedded (data)`,
      };
    }
  }
  if (shape.isError) {
    const only = shape.blocks[0] as { type?: unknown; text?: unknown };
    if (shape.blocks.length !== 1 || only.type !== "text" || !/\S/u.test(String(only.text))) {
      return { ok: false, rule: "an error result must have exactly one nonblank text block" };
    }
  }
  let normalized: ToolResult;
  try {
    normalized = await normalizeJsonValue(value, NO_OUTPUT_DIR);
  } catch {
    return { ok: false, rule: "the result could not be validated" };
  }
  if (normalized.isError !== shape.isError) {
    const first = normalized.content[0];
    const text = first?.type === "text" ? first.text : "";
    return {
      ok: false,
      rule: text.replace(/^The tool's output was invalid: /, "").replace(/\.$/, ""),
    };
  }
  return { ok: true, result: normalized };
}
