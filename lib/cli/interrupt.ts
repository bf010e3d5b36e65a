/**
 * A command ended by SIGINT, SIGTERM or SIGHUP after its cleanup: it exits 128 + the
 * signal's number (130, 143, 129), as shells expect of an interrupted program.
 *
 * @module
 */

import { ToolhostError } from "../errors/errors.ts";

const NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/**
 * The exit status of a program ended by `signal`: 128 + its number.
 *
 * @example
 * ```ts
 * import { signalExitCode } from "./interrupt.ts";
 * signalExitCode("SIGINT"); // 130
 * signalExitCode("SIGTERM"); // 143
 * ```
 */
export function signalExitCode(signal: string): number {
  return 128 + (NUMBERS[signal] ?? 0);
}

/**
 * The command was interrupted by a signal; what it started was stopped and cleaned up.
 *
 * @example
 * ```ts
 * import { Interrupted } from "./interrupt.ts";
 * new Interrupted("SIGINT").exitCode; // 130
 * ```
 */
export class Interrupted extends ToolhostError {
  /** 128 + the signal's number. */
  readonly exitCode: number;

  /** Create for the signal that arrived (`SIGINT`, `SIGTERM`, `SIGHUP`). */
  constructor(readonly signal: string) {
    super(
      "INTERRUPTED",
      `interrupted by ${signal}: the call was cancelled, and everything it started was stopped and cleaned up`,
    );
    this.exitCode = signalExitCode(signal);
  }
}
