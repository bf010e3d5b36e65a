/**
 * Listing a directory of a pin's walk with each entry's kind as the listing gives it
 * (`d_type`): a hint of what to open and how, every one checked after it is opened.
 *
 * @module
 */

import { readdirSync } from "node:fs";
import { hostFs, type ListedEntry } from "./host_fs.ts";

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
  const hostReadDir = hostFs.readDir;
  if (hostReadDir !== undefined) return Array.from(hostReadDir(path));
  return readdirSync(path, { withFileTypes: true }).map((d) => ({
    name: d.name,
    isFile: d.isFile(),
    isDirectory: d.isDirectory(),
    isSymlink: d.isSymbolicLink(),
  }));
}
