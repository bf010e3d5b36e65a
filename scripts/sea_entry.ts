/**
 * The entry of the Node single-executable build (`deno task build:sea`), bundled as
 * CommonJS (no top-level await, no `import.meta`). It only defines {@linkcode main}: the
 * launcher (scripts/sea_launcher.ts) calls it with the user's arguments, and the build
 * calls it on examples/ to make the bundle's V8 code cache (scripts/sea_code_cache.ts).
 *
 * @module
 */

import { runCli } from "../lib/cli/main.ts";
import { closeInheritedFds } from "../lib/process/inherited_fds.ts";

/**
 * Run the CLI on `argv` (the user's arguments, without the binary) and set
 * `process.exitCode`; resolves to that code and never rejects.
 *
 * @example
 * ```ts
 * import { main } from "./sea_entry.ts";
 * await main(["--help"]);
 * ```
 */
export async function main(argv: string[]): Promise<number> {
  // Before anything is spawned: descriptors the parent leaked must not reach any tool.
  closeInheritedFds();
  let code: number;
  try {
    code = await runCli(argv);
  } catch (e) {
    process.stderr.write(`toolhost: internal error: ${e instanceof Error ? e.name : "unknown"}\n`);
    code = 1;
  }
  process.exitCode = code;
  return code;
}
