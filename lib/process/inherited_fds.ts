/**
 * Descriptors a process inherited from whoever started it without close-on-exec would be
 * inherited in turn by every tool, harness and extension server it starts — bubblewrap
 * passes them into a sandbox unchanged, and a directory descriptor from outside reaches
 * outside the sandbox's mounts with `openat(fd, "..")` (the class of runc's
 * CVE-2024-21626). The Node CLI entries (npm bin, single executable) close them before anything runs;
 * the Deno entry (cli.ts) does the same through libc's `close` (Deno's `node:fs` cannot close a
 * descriptor Deno did not open).
 *
 * Which descriptors: every one from 3 up whose `/proc/self/fdinfo` flags lack
 * `O_CLOEXEC`, except `/dev/null` (the runtime keeps one open for its own spawns) and
 * Node's IPC channel (`NODE_CHANNEL_FD`). The runtimes open everything of their own with
 * close-on-exec, so what is left is exactly what the parent leaked. Linux only; elsewhere
 * (no `/proc`) nothing is closed.
 *
 * @module
 */

import { closeSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import process from "node:process";

/** `O_CLOEXEC` as `/proc/PID/fdinfo` prints it (octal flags). */
const O_CLOEXEC = 0o2000000;
/** Most descriptors looked at (a process may hold many; the rest are left alone). */
const MAX_FDS = 65_536;

/** Options of {@linkcode closeInheritedFds}. */
export interface CloseInheritedOptions {
  /** The `/proc` of this process. Default `/proc/self`. */
  procSelf?: string;
  /** Close (default) or only list them. */
  dryRun?: boolean;
}

function inheritable(procSelf: string, fd: number): boolean {
  try {
    const info = readFileSync(`${procSelf}/fdinfo/${fd}`, "latin1");
    const flags = /^flags:\s+([0-7]+)$/m.exec(info);
    if (flags === null) return false;
    return (parseInt(flags[1], 8) & O_CLOEXEC) === 0;
  } catch {
    return false; // closed meanwhile (the listing's own descriptor included)
  }
}

function target(procSelf: string, fd: number): string | undefined {
  try {
    return readlinkSync(`${procSelf}/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Close every descriptor from 3 up that this process inherited without close-on-exec
 * (see the module doc); returns their numbers. Call it first thing in a program's entry,
 * never from a library: a host application's descriptors are its own business.
 *
 * @example
 * ```ts
 * import { closeInheritedFds } from "./inherited_fds.ts";
 * const closed = closeInheritedFds({ dryRun: true });
 * console.log(closed); // e.g. [] — or [9] when started as `toolhost … 9</etc/hostname`
 * ```
 */
export function closeInheritedFds(options: CloseInheritedOptions = {}): number[] {
  const procSelf = options.procSelf ?? "/proc/self";
  let names: string[];
  try {
    names = readdirSync(`${procSelf}/fd`);
  } catch {
    return [];
  }
  const ipc = Number(process.env.NODE_CHANNEL_FD ?? -1);
  const closed: number[] = [];
  for (const name of names.slice(0, MAX_FDS)) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3 || fd === ipc) continue;
    if (!inheritable(procSelf, fd)) continue;
    const to = target(procSelf, fd);
    if (to === undefined || to === "/dev/null") continue;
    if (!options.dryRun) {
      try {
        closeSync(fd);
      } catch {
        continue;
      }
    }
    closed.push(fd);
  }
  return closed;
}
