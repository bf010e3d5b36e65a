/**
 * Normalizing a json-protocol call into a `ToolResult`. Process failures, nonzero exits
 * and unparseable output become generic errors that say which of these happened; a
 * parseable but rule-breaking result becomes "The tool's output was invalid: <rule>.".
 * Neither ever includes stderr or output text.
 *
 * @module
 */

import { resultBytes } from "../results/json_text.ts";
import type { RunOutcome } from "../process/run.ts";
import { type Block, errorResult, LIMITS, type ToolResult } from "../results/types.ts";
import { admitImage } from "./image_block.ts";
import { checkBlock, checkResultShape, isNonblank } from "./json_validate.ts";
import { MAX_JSON_DEPTH, precheckJson } from "./json_precheck.ts";
import { exitFailure, formatBytes, runFailure } from "./run_errors.ts";
import { heldBeforeParse } from "../redact/json_source.ts";
import type { Protector } from "../redact/types.ts";

/**
 * The invalid-output error for a broken rule.
 *
 * @example
 * ```ts
 * import { invalidOutput } from "./json_output.ts";
 * invalidOutput("`content` must be an array of 1 to 32 blocks");
 * ```
 */
export function invalidOutput(rule: string): ToolResult {
  return errorResult(`The tool's output was invalid: ${rule}.`);
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The error for stdout that does not parse as JSON: what the author must change (a stray
 * `console.log` is the usual cause), never any of the output itself.
 *
 * @example
 * ```ts
 * import { NOT_JSON } from "./json_output.ts";
 * console.log(NOT_JSON.startsWith("The tool's output was not valid JSON")); // true
 * ```
 */
export const NOT_JSON = "The tool's output was not valid JSON: a json tool must print exactly " +
  "one JSON result object on stdout (write logs to stderr).";

/** The error for output holding a protected value outside a JSON string (value-free). */
export const HELD_OUTSIDE_STRINGS = "The tool's output was withheld: it held a protected " +
  "value outside a JSON string (a number, say), where it cannot be redacted.";

/** Decode and parse stdout, or return the generic error. */
function parseStdout(
  stdout: Uint8Array,
  protect?: Protector,
): { value: unknown } | { error: ToolResult } {
  const pre = precheckJson(stdout, LIMITS.maxResultBytes);
  if (pre === "too-large") {
    return {
      error: invalidOutput(
        `the result is larger than ${formatBytes(LIMITS.maxResultBytes)} (compact)`,
      ),
    };
  }
  if (pre === "too-deep") {
    return { error: invalidOutput(`the result nests deeper than ${MAX_JSON_DEPTH} levels`) };
  }
  let text: string;
  try {
    text = utf8.decode(stdout);
  } catch {
    return { error: errorResult("The tool's output was not valid UTF-8.") };
  }
  if (text.trim() === "") {
    return {
      error: errorResult("The tool printed nothing; a json tool must print one JSON object."),
    };
  }
  // A value outside a string would come out of the parse rewritten (a long number rounded,
  // a number's point dropped): the redaction of the parsed result could no longer find
  // it, so the output is refused.
  if (protect !== undefined && heldBeforeParse(text, protect)) {
    return { error: errorResult(HELD_OUTSIDE_STRINGS) };
  }
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { error: errorResult(NOT_JSON) };
  }
}

/**
 * Normalize an already-parsed json-protocol result object: closed shapes, limits,
 * authored errors, and image admission (path images are read and embedded from
 * `outputDir`, which must still exist). Usable by anything that speaks the protocol.
 *
 * @example
 * ```ts
 * import { normalizeJsonValue } from "./json_output.ts";
 * const r = await normalizeJsonValue({ content: [{ type: "text", text: "hi" }] }, "/tmp/out");
 * console.log(r.isError); // false
 * ```
 */
export async function normalizeJsonValue(value: unknown, outputDir: string): Promise<ToolResult> {
  const shape = checkResultShape(value);
  if (!shape.ok) return invalidOutput(shape.rule);
  const blocks: Block[] = [];
  for (let i = 0; i < shape.blocks.length; i++) {
    const check = checkBlock(shape.blocks[i], i);
    if (!check.ok) return invalidOutput(check.rule);
    if ("block" in check) {
      blocks.push(check.block);
      continue;
    }
    if (shape.isError) break; // reported below: errors carry one text block
    const image = await admitImage(check.image, outputDir, i);
    if (!image.ok) return invalidOutput(image.rule);
    blocks.push(image.block);
  }
  if (shape.isError) {
    const only = blocks[0];
    if (shape.blocks.length !== 1 || only?.type !== "text" || !isNonblank(only.text)) {
      return invalidOutput(
        "an error result (`isError: true`) must have exactly one nonblank text block",
      );
    }
  }
  const result: ToolResult = { content: blocks, isError: shape.isError };
  if (resultBytes(result) > LIMITS.maxResultBytes) {
    return invalidOutput("the normalized result is larger than 8 MiB");
  }
  return result;
}

/**
 * Normalize a finished json-protocol run. Call it before removing the call's output
 * directory: path images are embedded from there.
 *
 * Generic errors, in order of precedence: could not be started; processes could not be
 * stopped; cancelled; "The tool timed out after N ms."; output over the stream cap;
 * "The tool was killed by signal SIG…"; "The tool exited with status N."; not valid
 * UTF-8; printed nothing; not valid JSON ({@link NOT_JSON}). Then the result rules.
 *
 * @example
 * ```ts
 * import { normalizeJsonOutput } from "./json_output.ts";
 * import { runBounded } from "../process/run.ts";
 * const run = await runBounded({ command: "/bin/echo", args: ['{"content":[{"type":"text","text":"ok"}]}'], cwd: "/", env: {} });
 * const result = await normalizeJsonOutput(run, "/nonexistent");
 * console.log(result.content[0]); // { type: "text", text: "ok" }
 * ```
 */
export async function normalizeJsonOutput(
  run: RunOutcome,
  outputDir: string,
  protect?: Protector,
): Promise<ToolResult> {
  const failed = runFailure(run);
  if (failed !== null) return failed;
  if (run.exitCode !== 0) return exitFailure(run.exitCode ?? -1);
  if (run.stdout.byteLength < run.stdoutBytes) {
    return errorResult("The tool's output was not valid JSON: it was truncated.");
  }
  const parsed = parseStdout(run.stdout, protect);
  if ("error" in parsed) return parsed.error;
  return await normalizeJsonValue(parsed.value, outputDir);
}
