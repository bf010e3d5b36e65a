/**
 * What only Deno offers cheaply, handed to lib/ by the Deno entries (cli.ts, the bench):
 * lib/ never names the `Deno` global, so the npm build runs on Node unchanged and keeps
 * `node:fs`, which is cheap there.
 *
 * - Directory pins size each opened file with `Deno.statSync` of `/proc/<pid>/fd/<fd>`
 *   (`useHostStat` of lib/pins/host_fs.ts): ~2 us of CPU against ~8–15 us for Deno's
 *   `node:fs` stat, which builds a `Stats` object (four `Date`s, six closures) per call;
 *   they list folders with `Deno.readDirSync` (`useHostReadDir` of lib/pins/host_fs.ts):
 *   ~0.6–1 us an entry against ~1.6 us for `node:fs`'s `readdirSync` with file types.
 *
 * It imports only lib/pins/host_fs.ts, which imports nothing: installing loads no `node:*`
 * module before the CLI knows its command (start-up is paid per command).
 *
 * @module
 */

import { useHostReadDir, useHostStat } from "./lib/pins/host_fs.ts";

/**
 * Install Deno's fast paths into lib/ (idempotent; call once at start).
 *
 * @example
 * ```ts
 * import { installDenoHost } from "./deno_host.ts";
 * installDenoHost();
 * ```
 */
export function installDenoHost(): void {
  useHostStat(Deno.statSync);
  useHostReadDir(Deno.readDirSync);
}
