/**
 * What a directory entry is, read from a stat or a `Dirent` without following it.
 *
 * @module
 */

import type fs from "node:fs";

/**
 * What a directory entry is, without following it.
 *
 * @example
 * ```ts
 * import type { EntryKind } from "./entry_kind.ts";
 * const k: EntryKind = "symlink";
 * console.log(k); // "symlink"
 * ```
 */
export type EntryKind = "file" | "directory" | "symlink" | "other";

/**
 * The kind of a stat (an `lstat`'s, so a symlink is one) or of a directory entry.
 *
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { kindOfStats } from "./entry_kind.ts";
 * console.log(kindOfStats(fs.lstatSync("/tmp"))); // "directory"
 * ```
 */
export function kindOfStats(st: fs.Stats | fs.BigIntStats | fs.Dirent): EntryKind {
  if (st.isFile()) return "file";
  if (st.isDirectory()) return "directory";
  if (st.isSymbolicLink()) return "symlink";
  return "other";
}
