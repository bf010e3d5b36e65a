/**
 * Normalizing a plain-protocol call: stdout, lossily decoded and cleaned, becomes one
 * text block capped at 64 KiB (with an explicit truncation marker). An exit status outside
 * the tool's `success_exit_codes` (default `[0]`) marks that bounded text as a tool error
 * (or, when nothing was printed, says which status).
 * Spawn failures, timeouts, cancellation, stream overflow and death by signal are
 * generic errors. stderr is never included.
 *
 * @module
 */

import type { RunOutcome } from "../process/run.ts";
import { LIMITS, type ToolResult } from "../results/types.ts";
import { isNonblank } from "./json_validate.ts";
import { exitFailure, runFailure } from "./run_errors.ts";
import { capText, cleanText, decodeLossy } from "../text/text_clean.ts";
import { protectedTextHead } from "../redact/head.ts";
import type { Protector } from "../redact/types.ts";

/**
 * Raw stdout bytes worth keeping for a plain call: enough that the cleaned text still
 * fills 64 KiB when escapes/controls are removed. Pass as `retainStdoutBytes`.
 */
export const PLAIN_RETAIN_BYTES = 4 * LIMITS.maxTextBytes;

/**
 * The cleaned, bounded text of a run's stdout, with `protect`'s values redacted before the
 * cap cuts it.
 *
 * @example
 * ```ts
 * import { plainText } from "./plain_output.ts";
 * // plainText(run, protect) → "line 1\nline 2\n"
 * ```
 */
export function plainText(run: RunOutcome, protect?: Protector): string {
  const cut = run.stdoutBytes > run.stdout.byteLength;
  // Redacted as it will be handed out (cleaned), before the 64 KiB cap cuts it.
  const text = protectedTextHead(protect, cleanText(decodeLossy(run.stdout, cut)), cut);
  return capText(text, LIMITS.maxTextBytes, cut);
}

/**
 * Normalize a finished plain-protocol run.
 *
 * @example
 * ```ts
 * import { normalizePlainOutput } from "./plain_output.ts";
 * import { runBounded } from "../process/run.ts";
 * const run = await runBounded({ command: "/bin/echo", args: ["hi"], cwd: "/", env: {} });
 * normalizePlainOutput(run); // { content: [{ type: "text", text: "hi\n" }], isError: false }
 * ```
 */
export function normalizePlainOutput(
  run: RunOutcome,
  protect?: Protector,
  successExitCodes?: readonly number[],
): ToolResult {
  if (run.stdoutOverflow) {
    // Seed: stdout is "capped at 64 KiB with an explicit truncation marker". A tool still
    // printing past the 16 MiB stream cap was stopped by us, not by its own failure.
    const other = runFailure({ ...run, stdoutOverflow: false, signal: null, exitCode: 0 });
    if (other !== null) return other;
    return { content: [{ type: "text", text: plainText(run, protect) }], isError: false };
  }
  const failed = runFailure(run);
  if (failed !== null) return failed;
  const text = plainText(run, protect);
  if (!isSuccessExit(run.exitCode, successExitCodes)) {
    if (!isNonblank(text)) return exitFailure(run.exitCode ?? -1);
    return { content: [{ type: "text", text }], isError: true };
  }
  return { content: [{ type: "text", text }], isError: false };
}

/**
 * Whether a plain run's exit status counts as success (`codes` default `[0]`).
 *
 * @example
 * ```ts
 * import { isSuccessExit } from "./plain_output.ts";
 * isSuccessExit(1, [0, 1]); // true
 * isSuccessExit(1); // false
 * ```
 */
export function isSuccessExit(code: number | null, codes: readonly number[] = [0]): boolean {
  return code !== null && codes.includes(code);
}
