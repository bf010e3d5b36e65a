#!/usr/bin/env -S deno run -A
/**
 * The `toolhost` CLI entry and the `deno compile` target.
 *
 * @module
 */

import { useHostReadDir, useHostStat } from "./lib/pins/host_fs.ts";
import { useHostObjectStat } from "./lib/paths/host_object_stat.ts";
import { runCli } from "./lib/cli/main.ts";
import { useHostSubreaper } from "./lib/process/host_reaper.ts";

/**
 * Hand lib/ what only Deno offers cheaply (lib/ never names the `Deno` global, so the npm
 * build runs on Node unchanged and keeps `node:fs`, cheap there). Directory pins then size
 * each opened file with `Deno.statSync` of `/proc/<pid>/fd/<fd>` (~2 us of CPU against
 * ~8–15 us for Deno's `node:fs` stat, which builds a `Stats` object of four `Date`s and six
 * closures per call) and list folders with `Deno.readDirSync` (~0.6–1 us an entry against
 * ~1.6 us for `readdirSync` with file types); the sandbox checks each object a built-in
 * opens with it too (lib/paths/object_stat.ts). lib/pins/host_fs.ts and
 * lib/paths/host_object_stat.ts import nothing, so this loads no `node:*` module before
 * the CLI knows its command. The bench calls it too.
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
  useHostObjectStat(Deno.statSync); // the sandbox's checks of what a built-in opens
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

/** `PR_SET_CHILD_SUBREAPER` (linux/prctl.h). */
const PR_SET_CHILD_SUBREAPER = 36;
/** `WNOHANG` (sys/wait.h). */
const WNOHANG = 1;

/**
 * Make this process a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER, 1)` through FFI) and
 * hand lib/ the `waitpid(pid, NULL, WNOHANG)` that reaps the orphans it then adopts
 * (lib/process/adopted.ts): a tool's grandchild whose parent exited is re-parented to
 * toolhost instead of init, so a tool that escapes with `setsid`, a double fork and
 * `env -i` is still counted toward its limits and killed when its call ends (Node has no
 * `prctl`: the npm build keeps init as the orphans' parent). Linux only, and only with
 * the FFI permission already granted (never a prompt). Returns whether it took effect.
 *
 * @example
 * ```ts
 * import { becomeSubreaper } from "./cli.ts";
 * becomeSubreaper(); // true on Linux with --allow-ffi
 * ```
 */
export function becomeSubreaper(): boolean {
  if (Deno.build.os !== "linux") return false;
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return false;
  let libc;
  try {
    libc = Deno.dlopen("libc.so.6", {
      prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"], result: "i32" },
      waitpid: { parameters: ["i32", "pointer", "i32"], result: "i32" },
    });
  } catch {
    return false;
  }
  if (libc.symbols.prctl(PR_SET_CHILD_SUBREAPER, 1n, 0n, 0n, 0n) !== 0) {
    libc.close();
    return false;
  }
  const { waitpid } = libc.symbols; // the library stays open for the life of the process
  useHostSubreaper({ reap: (pid) => pid > 0 && waitpid(pid, null, WNOHANG) === pid });
  return true;
}

if (import.meta.main) {
  installDenoHost();
  closeLeakedFds();
  becomeSubreaper();
  const code = await runCli(process.argv.slice(2));
  process.exitCode = code;
}
