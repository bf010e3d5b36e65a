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

/** `O_CLOEXEC` as `/proc/PID/fdinfo` prints it (octal flags). */
const O_CLOEXEC = 0o2000000;

function inheritable(fd: number): boolean {
  try {
    const flags = /^flags:\s+([0-7]+)$/m.exec(Deno.readTextFileSync(`/proc/self/fdinfo/${fd}`));
    return flags !== null && (parseInt(flags[1], 8) & O_CLOEXEC) === 0;
  } catch {
    return false; // closed meanwhile (the listing's own descriptor included)
  }
}

function leakedFds(): number[] {
  const ipc = Number(Deno.env.get("NODE_CHANNEL_FD") ?? -1);
  const out: number[] = [];
  let names: Deno.DirEntry[];
  try {
    names = [...Deno.readDirSync("/proc/self/fd")];
  } catch {
    return out; // no /proc: nothing to look at (as lib/process/inherited_fds.ts)
  }
  for (const { name } of names.slice(0, 65_536)) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3 || fd === ipc || !inheritable(fd)) continue;
    try {
      if (Deno.readLinkSync(`/proc/self/fd/${fd}`) !== "/dev/null") out.push(fd);
    } catch { /* closed meanwhile */ }
  }
  return out;
}

/**
 * Close every descriptor from 3 up this process inherited without close-on-exec (all but
 * `/dev/null` and Node's IPC channel), as the Node entries do with
 * `lib/process/inherited_fds.ts`: otherwise every tool, harness, hook and extension server
 * inherits them, and bubblewrap passes them into a sandbox unchanged — a leaked folder
 * descriptor reaches the host's files from inside (`/proc/self/fd/N/..`). Deno's `node:fs`
 * cannot close a descriptor Deno did not open, so libc's `close` is called through FFI,
 * and only when there is something to close. Returns the descriptors closed.
 *
 * @example
 * ```ts
 * import { closeLeakedFds } from "./cli.ts";
 * closeLeakedFds(); // [] — or [9] when started as `toolhost … 9</etc/hostname`
 * ```
 */
export function closeLeakedFds(): number[] {
  const leaked = leakedFds();
  if (leaked.length === 0) return leaked;
  const libc = Deno.dlopen("libc.so.6", { close: { parameters: ["i32"], result: "i32" } });
  try {
    for (const fd of leaked) libc.symbols.close(fd);
  } finally {
    libc.close();
  }
  return leaked;
}

if (import.meta.main) {
  installDenoHost();
  closeLeakedFds();
  const code = await runCli(process.argv.slice(2));
  process.exitCode = code;
}
