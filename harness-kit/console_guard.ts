/**
 * stdout belongs to the protocol (the result object, or the readiness line). Inside a
 * harness-kit tool, `console.log`, `console.info`, `console.debug` and `console.trace`
 * write to stderr instead, so a stray log line can never corrupt a result or count as
 * readiness. Write protocol output with {@linkcode writeStdout} only.
 *
 * @module
 */

import process from "node:process";

let guarded = false;

/**
 * Route console output to stderr (idempotent).
 *
 * @example
 * ```ts
 * import { guardConsole } from "./console_guard.ts";
 * guardConsole();
 * console.log("goes to stderr");
 * ```
 */
export function guardConsole(): void {
  if (guarded) return;
  guarded = true;
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.trace = toStderr;
}

/**
 * Write protocol output to stdout and resolve once it is flushed.
 *
 * @example
 * ```ts
 * import { writeStdout } from "./console_guard.ts";
 * await writeStdout("ready\n");
 * ```
 */
export function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (err) => (err ? reject(err) : resolve()));
  });
}
