#!/usr/bin/env -S deno run -A
/**
 * The `toolhost` CLI entry and the `deno compile` target.
 *
 * @module
 */

import { installDenoHost } from "./deno_host.ts";
import { runCli } from "./lib/cli/main.ts";

if (import.meta.main) {
  installDenoHost();
  // No closeInheritedFds() here: Deno's node:fs cannot close a descriptor Deno did not
  // open (lib/process/inherited_fds.ts), so it would only add start-up work.
  const code = await runCli(process.argv.slice(2));
  process.exitCode = code;
}
