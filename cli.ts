#!/usr/bin/env -S deno run -A
/**
 * The `toolhost` CLI entry and the `deno compile` target.
 *
 * @module
 */

import { useHostReadDir, useHostStat } from "./lib/pins/host_fs.ts";
import { runCli } from "./lib/cli/main.ts";

/**
 * Hand lib/ what only Deno offers cheaply (lib/ never names the `Deno` global, so the npm
 * build runs on Node unchanged and keeps `node:fs`, cheap there). Directory pins then size
 * each opened file with `Deno.statSync` of `/proc/<pid>/fd/<fd>` (~2 us of CPU against
 * ~8–15 us for Deno's `node:fs` stat, which builds a `Stats` object of four `Date`s and six
 * closures per call) and list folders with `Deno.readDirSync` (~0.6–1 us an entry against
 * ~1.6 us for `readdirSync` with file types). lib/pins/host_fs.ts imports nothing, so this
 * loads no `node:*` module before the CLI knows its command. The bench calls it too.
 *
 * @example
 * ```ts
 * import { installDenoHost } from "./cli.ts";
 * installDenoHost();
 * ```
 */
export function installDenoHost(): void {
  useHostStat(Deno.statSync);
  useHostReadDir(Deno.readDirSync);
}

if (import.meta.main) {
  installDenoHost();
  // No closeInheritedFds() here: Deno's node:fs cannot close a descriptor Deno did not
  // open (lib/process/inherited_fds.ts), so it would only add start-up work.
  const code = await runCli(process.argv.slice(2));
  process.exitCode = code;
}
