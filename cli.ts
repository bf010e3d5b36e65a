#!/usr/bin/env -S deno run -A
/**
 * The `toolhost` CLI entry and the `deno compile` target.
 *
 * @module
 */

import { runCli } from "./lib/cli/main.ts";
import { closeInheritedFds } from "./lib/process/inherited_fds.ts";

if (import.meta.main) {
  // Descriptors the parent leaked must not reach any tool (under Deno they cannot be
  // closed from here; lib/process/inherited_fds.ts).
  closeInheritedFds();
  const code = await runCli(process.argv.slice(2));
  process.exitCode = code;
}
