/**
 * Listing a directory of a pin's walk with each entry's kind as the listing gives it
 * (`d_type`): a hint of what to open and how, every one checked after it is opened.
 *
 * @module
 */

import { readdirSync } from "node:fs";

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

/** A synchronous directory listing, as a host offers it (the shape of `Deno.readDirSync`). */
export type HostReadDir = (path: string) => Iterable<ListedEntry>;

let hostReadDir: HostReadDir | undefined;

/**
 * List directories with the host's own listing instead of `node:fs` (undefined restores
 * `node:fs`). Under Deno the CLI and the bench pass `Deno.readDirSync`: ~0.6–1 us an entry
 * against ~1.6 us for `readdirSync(path, { withFileTypes: true })`, which Deno builds on the
 * same listing. lib/ never names the `Deno` global.
 *
 * @example
 * ```ts
 * import { readdirSync } from "node:fs";
 * import { useHostReadDir } from "./dir_listing.ts";
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
  hostReadDir = readDir;
}

/**
 * The entries of the directory at `path` (unsorted) with their listed kinds. Throws what the
 * listing throws.
 *
 * @example
 * ```ts
 * import { listDirectory } from "./dir_listing.ts";
 * console.log(listDirectory("lib/pins").some((e) => e.name === "mod.ts" && e.isFile)); // true
 * ```
 */
export function listDirectory(path: string): ListedEntry[] {
  if (hostReadDir !== undefined) return Array.from(hostReadDir(path));
  return readdirSync(path, { withFileTypes: true }).map((d) => ({
    name: d.name,
    isFile: d.isFile(),
    isDirectory: d.isDirectory(),
    isSymlink: d.isSymbolicLink(),
  }));
}
