/**
 * Memory a confined tool holds in its sandbox's private tmpfs mounts: bubblewrap gives
 * every sandbox its own `/tmp` and `/dev/shm` (lib/sandbox/bwrap_argv.ts), each capped at
 * `max_memory_mb`. What is written there is memory no process's resident set shows, even
 * once every file is closed: without this count, a tool could hold its limit in each of
 * them on top of its resident memory (three times the limit).
 *
 * {@link sandboxTmpfsBytes} looks at a process through `/proc/<pid>/root` — its root,
 * seen from here, with the mounts of its own mount namespace. A process whose root is
 * this process's holds no private mount. For one that is elsewhere, each of `/tmp` and
 * `/dev/shm` under that root that is a real folder (`lstat`: never a symlink followed) on
 * a tmpfs (`statfs`) counts its used blocks — each mount once (by device), however many
 * processes share it.
 *
 * @module
 */

import { lstatSync, statfsSync, statSync } from "node:fs";

/** `statfs` type of a tmpfs (`TMPFS_MAGIC`). */
const TMPFS_MAGIC = 0x01021994;

/** The private mounts a sandbox has (bwrap_argv.ts `systemMounts`). */
const PRIVATE_MOUNTS = ["/tmp", "/dev/shm"];

let ownRoot: string | undefined;

/** `dev:ino` of a process's root, or undefined when it cannot be read. */
function rootId(pid: number | "self"): string | undefined {
  try {
    const st = statSync(`/proc/${pid}/root`);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * Bytes used in the private tmpfs mounts of the sandbox `pid` runs in, counting only
 * mounts whose `tmpfs:<dev>` key is not in `seen` yet (it adds them); 0 for a process in
 * this process's root, or one gone.
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { sandboxTmpfsBytes } from "./sandbox_tmpfs.ts";
 * sandboxTmpfsBytes(process.pid, new Set()); // 0: not in a sandbox
 * ```
 */
export function sandboxTmpfsBytes(pid: number, seen: Set<string>): number {
  ownRoot ??= rootId("self");
  const root = rootId(pid);
  if (root === undefined || ownRoot === undefined || root === ownRoot) return 0;
  let bytes = 0;
  for (const dir of PRIVATE_MOUNTS) bytes += mountBytes(`/proc/${pid}/root${dir}`, seen);
  return bytes;
}

/** Used bytes of the tmpfs mounted at `path` (a folder, not a symlink), when first seen. */
function mountBytes(path: string, seen: Set<string>): number {
  try {
    const st = lstatSync(path);
    const key = `tmpfs:${st.dev}`;
    if (!st.isDirectory() || seen.has(key)) return 0;
    const fs = statfsSync(path);
    if (Number(fs.type) !== TMPFS_MAGIC) return 0;
    seen.add(key);
    return Math.max(0, Number(fs.blocks) - Number(fs.bfree)) * Number(fs.bsize);
  } catch {
    return 0; // gone meanwhile
  }
}
