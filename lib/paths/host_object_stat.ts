/**
 * A host's own `stat` for the sandbox's checks of an opened object (its kind, identity and
 * size; see object_stat.ts), where it costs less than `node:fs`. The Deno entries set it
 * to the Deno host's `statSync` (`installDenoHost` of cli.ts): Deno's `node:fs` stat builds a `Stats`
 * object (four `Date`s, accessors defined per object) around that same `stat`, most of the
 * cost of each object a `read` opens. lib/ never names the `Deno` global, and without it
 * `node:fs` is used. This module imports nothing, so setting it at start-up loads nothing.
 *
 * @module
 */

/** What the sandbox reads of a host's `stat` (the shape of Deno's `FileInfo`). */
export interface HostObjectInfo {
  /** A regular file. */
  readonly isFile: boolean;
  /** A folder. */
  readonly isDirectory: boolean;
  /** A symlink (only seen when the path named the link itself). */
  readonly isSymlink: boolean;
  /** Size in bytes. */
  readonly size: number;
  /** Device number (inexact from 2^53 up: then `node:fs` is asked again). */
  readonly dev: number;
  /** Inode number; null where the host has none. */
  readonly ino: number | null;
  /** The whole `st_mode` (kind and permissions); null or absent where the host has none. */
  readonly mode?: number | null;
  /** Owner's user id; null or absent where the host has none. */
  readonly uid?: number | null;
  /** Last status change; null or absent where the host has none. */
  readonly ctime?: Date | null;
}

/** A synchronous `stat` of a path (following symlinks), as a host offers it. */
export type HostObjectStat = (path: string) => HostObjectInfo;

/** The `stat` set so far (undefined: `node:fs`). */
export const hostObjectStat: { stat?: HostObjectStat } = {};

/**
 * Check the objects the sandbox opens with `stat` of `/proc/self/fd/<fd>` (the very object
 * open on the descriptor); undefined restores `node:fs`.
 *
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { useHostObjectStat } from "./host_object_stat.ts";
 * useHostObjectStat((p) => {
 *   const st = fs.statSync(p);
 *   const { size, dev, ino } = st;
 *   const isSymlink = st.isSymbolicLink();
 *   return { isFile: st.isFile(), isDirectory: st.isDirectory(), isSymlink, size, dev, ino };
 * });
 * useHostObjectStat(undefined);
 * ```
 */
export function useHostObjectStat(stat: HostObjectStat | undefined): void {
  hostObjectStat.stat = stat;
}
