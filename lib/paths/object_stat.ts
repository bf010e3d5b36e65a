/**
 * The stat the sandbox's procfs opens (open_at.ts) take of an object open on a
 * descriptor: its kind, its exact identity (device and inode) and its size — from the
 * host's own `stat` of `/proc/self/fd/<fd>` when one is set (host_object_stat.ts; under
 * Deno about a third of the CPU of `node:fs`'s, which wraps that same `stat` in a `Stats`
 * object), else `fstatExact`. The magic link resolves to the very object open on the
 * descriptor, never a path looked up again, so the answer is the `fstat`'s. Identity stays
 * exact: when the host's device or inode number is not a safe integer (≥ 2^53, or absent),
 * `fstatExact` is asked instead, as it is when the host's `stat` fails (so errors are
 * `node:fs`'s).
 *
 * @module
 */

import { fstatExact } from "./exact_stat.ts";
import { type HostObjectInfo, hostObjectStat } from "./host_object_stat.ts";

/** What the sandbox checks of an opened object (`fs.Stats` and `fs.BigIntStats` are ones). */
export interface ObjectStat {
  /** Device number, exact. */
  readonly dev: number | bigint;
  /** Inode number, exact. */
  readonly ino: number | bigint;
  /** Size in bytes. */
  readonly size: number | bigint;
  /** A regular file. */
  isFile(): boolean;
  /** A folder. */
  isDirectory(): boolean;
  /** A symlink (an `O_PATH | O_NOFOLLOW` descriptor can be open on one). */
  isSymbolicLink(): boolean;
}

/** A host's answer, with the exact identity checked. */
class HostStat implements ObjectStat {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  #info: HostObjectInfo;

  constructor(info: HostObjectInfo, ino: number) {
    this.dev = info.dev;
    this.ino = ino;
    this.size = info.size;
    this.#info = info;
  }

  isFile(): boolean {
    return this.#info.isFile;
  }

  isDirectory(): boolean {
    return this.#info.isDirectory;
  }

  isSymbolicLink(): boolean {
    return this.#info.isSymlink;
  }
}

/**
 * The stat of the object open on `fd`, exact in identity (see the module documentation).
 * Only for a process where `/proc/self/fd` works. Throws what `fstatExact` throws.
 *
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { statOpenObject } from "./object_stat.ts";
 * const fd = fs.openSync("/tmp", "r");
 * statOpenObject(fd).isDirectory(); // true
 * fs.closeSync(fd);
 * ```
 */
export function statOpenObject(fd: number): ObjectStat {
  const stat = hostObjectStat.stat;
  if (stat !== undefined) {
    let info: HostObjectInfo | undefined;
    try {
      info = stat(`/proc/self/fd/${fd}`);
    } catch { /* asked again through node:fs, whose error is thrown */ }
    const ino = info?.ino;
    if (
      info !== undefined && typeof ino === "number" && Number.isSafeInteger(ino) &&
      Number.isSafeInteger(info.dev) && Number.isSafeInteger(info.size)
    ) return new HostStat(info, ino);
  }
  return fstatExact(fd, true);
}
