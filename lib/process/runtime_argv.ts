/**
 * Spawning a program whose command line names the runtime's own binary. Deno's
 * `node:child_process` takes any argv element equal to `process.execPath` (the command
 * itself or an argument: `prlimit -- <deno> run x.ts`, `sh -c 'exec "$@"' sh <deno> …`,
 * `env <deno> …`, bwrap's `-- <deno> …`) for a Node-style self-spawn and rewrites what
 * follows it — `run x.ts` becomes `run -A x.ts`, `x.ts` becomes `run -A … x.ts`. A tool
 * declared as `deno run tool.ts` (no permissions) would then run with every permission.
 *
 * The same file spelt with a leading `//` is not string-equal, and the kernel resolves it
 * alike, so every spawn in lib/ passes its argv through {@linkcode runtimeSafeArgv}
 * first. Node leaves argv alone, so the spelling changes nothing there.
 *
 * @module
 */

import process from "node:process";

let runtimePath: string | undefined;

/**
 * `command` and `args` with every element equal to the runtime's own path
 * (`process.execPath`) spelt `//<path>` instead, so that Deno passes the argv unchanged.
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { runtimeSafeArgv } from "./runtime_argv.ts";
 * const argv = runtimeSafeArgv("/usr/bin/env", [process.execPath, "run", "x.ts"]);
 * argv.args[0] === `/${process.execPath}`; // true
 * ```
 */
export function runtimeSafeArgv(
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  // The runtime's path does not change; under Deno each read of it is a readlink.
  const self = (runtimePath ??= process.execPath);
  const safe = (a: string) => (a === self ? `/${self}` : a);
  return { command: safe(command), args: args.map(safe) };
}
