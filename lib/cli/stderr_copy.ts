/**
 * `--stderr` (`tools call`, `tools check --execute`): the registry option that copies
 * tool and harness stderr to the command's own stderr. Imports no registry, so
 * `tools check` stays light.
 *
 * @module
 */

import type { CliIo } from "./exit.ts";

/** Help text of `--stderr` (`tools call`, `tools check --execute`). */
export const STDERR_HELP =
  "copy what the tool (and its session's harness) prints to stderr to this terminal's " +
  "stderr, to see why it failed (never into the result, never over MCP)";

/**
 * With `--stderr`, the registry's `stderr` option: copies tool and harness stderr to the
 * command's stderr (decoded as a stream, so split characters stay whole); else undefined.
 *
 * @example
 * ```ts
 * import { processIo } from "./exit.ts";
 * import { stderrCopy } from "./stderr_copy.ts";
 * const copy = stderrCopy(processIo, true);
 * copy?.(new TextEncoder().encode("deno: not found\n"));
 * ```
 */
export function stderrCopy(
  io: CliIo,
  enabled: boolean | undefined,
): ((chunk: Uint8Array) => void) | undefined {
  if (!enabled) return undefined;
  const decoder = new TextDecoder();
  return (chunk) => io.err(decoder.decode(chunk, { stream: true }));
}
