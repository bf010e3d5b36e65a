/**
 * Generic error results for process-level failures shared by the json and plain
 * protocols. They say what happened and never include stderr, stdout or paths.
 *
 * @module
 */

import type { RunOutcome } from "../process/run.ts";
import { errorResult, type ToolResult } from "../results/types.ts";

/**
 * Format a byte count for messages: `16 MiB`, `64 KiB` or `1000 bytes`.
 *
 * @example
 * ```ts
 * import { formatBytes } from "./run_errors.ts";
 * formatBytes(16 * 1024 * 1024); // "16 MiB"
 * ```
 */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

const SPAWN_TEXT = {
  "not found": "The tool could not be started: its command was not found.",
  "permission denied": "The tool could not be started: permission denied.",
  "failed": "The tool could not be started.",
} as const;

/**
 * The generic error for a run that was not a clean exit (spawn failure, unconfirmed
 * cleanup, a resource limit, cancellation, timeout, stream overflow, or death by
 * signal), else null.
 * Exit statuses are left to each protocol.
 *
 * @example
 * ```ts
 * import { runFailure } from "./run_errors.ts";
 * // runFailure(outcome)?.content[0] → { type: "text", text: "The tool timed out after 100 ms." }
 * ```
 */
export function runFailure(run: RunOutcome): ToolResult | null {
  if (run.spawnError !== undefined) return errorResult(SPAWN_TEXT[run.spawnError]);
  if (!run.cleanupConfirmed) {
    return errorResult("The tool's processes could not be stopped; some may still be running.");
  }
  if (run.limitExceeded !== undefined) {
    return errorResult(`The tool was stopped: resource limit: ${run.limitExceeded}.`);
  }
  if (run.cancelled) return errorResult("The tool call was cancelled.");
  if (run.timedOut) return errorResult(`The tool timed out after ${run.timeoutMs} ms.`);
  if (run.stdoutOverflow) {
    return errorResult(`The tool's output exceeded the ${formatBytes(run.maxStdoutBytes)} limit.`);
  }
  if (run.stderrOverflow) {
    return errorResult(
      `The tool's error output exceeded the ${formatBytes(run.maxStderrBytes)} limit.`,
    );
  }
  if (run.signal !== null) return errorResult(`The tool was killed by signal ${run.signal}.`);
  if (run.exitCode === null) return errorResult("The tool ended without an exit status.");
  return null;
}

/** What the shell's reserved statuses usually mean (stderr itself is never shown). */
const STATUS_MEANING: Record<number, string> = {
  126: "a program it ran is not executable (check the file's mode and its `#!` line)",
  127: "a command it ran, or its script's `#!` interpreter, was not found on PATH",
};

/** Where an author sees what a failing tool printed to stderr. */
export const STDERR_HINT =
  "To see the tool's error output, run it with `toolhost tools call --stderr`.";

/**
 * The generic error for a nonzero exit status; 126 and 127 also say what they usually
 * mean and how to see the tool's stderr (which is never put into a result).
 *
 * @example
 * ```ts
 * import { exitFailure } from "./run_errors.ts";
 * exitFailure(3).content[0]; // { type: "text", text: "The tool exited with status 3." }
 * ```
 */
export function exitFailure(status: number): ToolResult {
  const meaning = STATUS_MEANING[status];
  if (meaning === undefined) return errorResult(`The tool exited with status ${status}.`);
  return errorResult(
    `The tool exited with status ${status}, which usually means ${meaning}. ${STDERR_HINT}`,
  );
}
