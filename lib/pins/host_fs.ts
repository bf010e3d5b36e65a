/**
 * What a host offers a directory pin in place of `node:fs` where its own calls cost less: a
 * `stat` that follows symlinks (sizing opened files through `/proc/<pid>/fd/<fd>`, see
 * `proc_fd.ts`) and a directory listing with entry kinds (`dir_listing.ts`). The Deno
 * entries set them (`installDenoHost` of cli.ts); lib/ never names the `Deno` global, and without them
 * `node:fs` is used. This module imports nothing, so setting them at start-up loads nothing.
 *
 * @module
 */

/** The calls set so far (undefined: `node:fs`). */
export const hostFs: { stat?: HostStat; readDir?: HostReadDir } = {};

/** What a directory pin needs of a `stat` that follows symlinks: the kind and size found. */
export interface FollowedStat {
  /** Whether it is a regular file (`S_ISREG`). */
  readonly isFile: boolean;
  /** Its size in bytes. */
  readonly size: number;
}

/** A synchronous `stat` of a path that follows symlinks, as a host offers it. */
export type HostStat = (path: string) => FollowedStat;

/**
 * Size descriptors with the host's own `stat` (following symlinks) of `/proc/self/fd/<fd>`
 * instead of `node:fs`, where procfs shows descriptors; undefined restores `node:fs`. Under
 * Deno, whose `node:fs` builds a `Stats` object per call (four `Date`s and six closures,
 * ~8–15 us of CPU a call, more than the rest of a small file's pinning), the CLI and the
 * bench pass the Deno host's `statSync` (~2 us, `S_ISREG` and `st_size` from the same `stat(2)`): lib/
 * never names the `Deno` global, and Node keeps its own cheap `fstatSync`. The magic link
 * resolves to the very file open on the descriptor (never a path looked up again), so the
 * answer is the `fstat`'s.
 *
 * @example
 * ```ts
 * import { statSync } from "node:fs";
 * import { useHostStat } from "./host_fs.ts";
 * useHostStat((p) => {
 *   const st = statSync(p);
 *   return { isFile: st.isFile(), size: st.size };
 * });
 * useHostStat(undefined);
 * ```
 */
export function useHostStat(stat: HostStat | undefined): void {
  hostFs.stat = stat;
}

/**
 * Whether a host's `stat` is set (see {@linkcode useHostStat}): then a descriptor's size
 * costs this thread less than handing it to the stat thread would.
 *
 * @example
 * ```ts
 * import { hostStatInUse } from "./host_fs.ts";
 * console.log(typeof hostStatInUse()); // "boolean"
 * ```
 */
export function hostStatInUse(): boolean {
  return hostFs.stat !== undefined;
}

/** One listed entry: its name and the kind the listing gives. */
export interface ListedEntry {
  /** The entry's name in its directory. */
  readonly name: string;
  /** Listed as a regular file. */
  readonly isFile: boolean;
  /** Listed as a directory. */
  readonly isDirectory: boolean;
  /** Listed as a symlink. */
  readonly isSymlink: boolean;
}

/** A synchronous directory listing, as a host offers it (the shape of the Deno host's `readDirSync`). */
export type HostReadDir = (path: string) => Iterable<ListedEntry>;

/**
 * List directories with the host's own listing instead of `node:fs` (undefined restores
 * `node:fs`). Under Deno the CLI and the bench pass the Deno host's `readDirSync`: ~0.6–1 us an entry
 * against ~1.6 us for `readdirSync(path, { withFileTypes: true })`, which Deno builds on the
 * same listing. lib/ never names the `Deno` global.
 *
 * @example
 * ```ts
 * import { readdirSync } from "node:fs";
 * import { useHostReadDir } from "./host_fs.ts";
 * useHostReadDir((p) =>
 *   readdirSync(p, { withFileTypes: true }).map((d) => ({
 *     name: d.name,
 *     isFile: d.isFile(),
 *     isDirectory: d.isDirectory(),
 *     isSymlink: d.isSymbolicLink(),
 *   }))
 * );
 * useHostReadDir(undefined);
 * ```
 */
export function useHostReadDir(readDir: HostReadDir | undefined): void {
  hostFs.readDir = readDir;
}
