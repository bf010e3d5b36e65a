#!/usr/bin/env -S deno run -A
/**
 * The `toolhost` CLI entry and the `deno compile` target.
 *
 * @module
 */

import { runCli } from "./lib/cli/main.ts";

if (import.meta.main) {
  const code = await runCli(process.argv.slice(2));
  process.exitCode = code;
}
