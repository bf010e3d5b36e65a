/**
 * The entry of the Node single-executable build (`deno task build:sea`). Node 20 runs a
 * SEA's main script as CommonJS, so this entry has no top-level await and no
 * `import.meta`; `process.argv` is `[binary, binary, ...args]` inside a SEA, the same shape
 * as `node script.js ...args`, so the user's arguments start at index 2.
 *
 * @module
 */

import { runCli } from "../lib/cli/main.ts";
import { closeInheritedFds } from "../lib/process/inherited_fds.ts";

// Before anything is spawned: descriptors the parent leaked must not reach any tool.
closeInheritedFds();
runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`toolhost: internal error: ${e instanceof Error ? e.name : "unknown"}\n`);
    process.exitCode = 1;
  },
);
