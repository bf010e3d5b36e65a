/**
 * Exit codes and error reporting for the CLI: 0 ready/success; 1 declaration, preflight,
 * tool or cleanup failure; 2 invalid invocation. No stack traces for user mistakes.
 *
 * @module
 */

import { DeclarationError, ToolhostError } from "../errors/errors.ts";
import { Interrupted } from "./interrupt.ts";

/** Exit codes. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** Where the CLI writes. */
export interface CliIo {
  /** Standard output. */
  out(text: string): void;
  /** Standard error. */
  err(text: string): void;
}

/**
 * The process's own stdout/stderr.
 *
 * @example
 * ```ts
 * import { processIo } from "./exit.ts";
 * processIo.out("hello\n");
 * ```
 */
export const processIo: CliIo = {
  out: pipeSafeWriter(() => process.stdout),
  err: pipeSafeWriter(() => process.stderr),
};

/**
 * A writer that goes quiet once its reader is gone (`toolhost … | head`): the command
 * still finishes — sessions are stopped, cleanup confirmed — without an EPIPE trace.
 */
function pipeSafeWriter(stream: () => NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  let watching = false;
  const gone = (e: unknown) => (e as { code?: string } | null)?.code === "EPIPE";
  return (text) => {
    if (closed) return;
    const s = stream();
    if (!watching) {
      watching = true;
      s.on("error", (e) => {
        if (gone(e)) closed = true;
        else throw e;
      });
    }
    try {
      s.write(text);
    } catch (e) {
      if (!gone(e)) throw e;
      closed = true;
    }
  };
}

/**
 * Report an error on stderr and return the exit code it maps to.
 *
 * @example
 * ```ts
 * import { processIo, reportError } from "./exit.ts";
 * reportError(new Error("boom"), processIo); // 1
 * ```
 */
export function reportError(e: unknown, io: CliIo): number {
  if (e instanceof DeclarationError) {
    io.err(`toolhost: declaration error${e.problems.length > 1 ? "s" : ""}:\n`);
    io.err(`${e.message.split("\n").map((l) => `  ${l}`).join("\n")}\n`);
    return EXIT.failure;
  }
  if (e instanceof Interrupted) {
    io.err(`toolhost: ${e.message}\n`);
    return e.exitCode;
  }
  if (e instanceof ToolhostError) {
    io.err(`toolhost: ${e.message} [${e.code}]\n`);
    return e.code === "INVALID_INVOCATION" || e.code === "UNKNOWN_EVAL" ||
        e.code === "UNKNOWN_TOOL" || e.code === "INVALID_ARGUMENTS"
      ? EXIT.usage
      : EXIT.failure;
  }
  const msg = e instanceof Error ? e.message : String(e);
  io.err(`toolhost: internal error: ${msg.split("\n")[0]}\n`);
  if (process.env.TOOLHOST_DEBUG && e instanceof Error && e.stack) io.err(`${e.stack}\n`);
  return EXIT.failure;
}
