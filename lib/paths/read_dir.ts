/**
 * Reading one open sandbox folder's entries, bounded and sorted: more entries than a
 * traversal allows is an error ({@link TooManyEntriesError}), never a truncation.
 *
 * @module
 */

import fs from "node:fs";
import process from "node:process";
import { PathError } from "../errors/errors.ts";
import { type EntryKind, kindOfStats } from "./entry_kind.ts";
import { hostFs, type ListedEntry } from "../pins/host_fs.ts";
import { pathErrorFor } from "./errno.ts";
import type { DirEntry, DirHandle } from "./sandbox_types.ts";
import { showPath } from "./show_path.ts";

/** Folders larger than this (st_size) are streamed where `opendir` is incremental. */
const HUGE_DIR_BYTES = 256 * 1024;
/** Deno's `node:fs` opendir reads a whole folder at once; Node's streams it. */
const STREAMING_DIRS = !("deno" in process.versions);

/**
 * A folder holds more entries than a traversal allows (an error, not a truncation).
 *
 * @example
 * ```ts
 * import { TooManyEntriesError } from "./read_dir.ts";
 * const e = new TooManyEntriesError("The folder `big` has more than 10,000 entries.");
 * console.log(e.code); // "PATH_ERROR"
 * ```
 */
export class TooManyEntriesError extends PathError {}

/**
 * The entries of the open folder `h` (`logical` names it in errors), sorted by name — or
 * by `sortKey(name)` when given. More than `maxEntries` entries is an error. Under Node a
 * folder whose size suggests very many entries is streamed, so it fails after one entry
 * too many; Deno's `node:fs` always reads a folder in full (its `opendir` is not
 * incremental), so there the count is checked after reading.
 *
 * @throws {TooManyEntriesError} when the folder has too many entries.
 * @throws {PathError} when it cannot be read.
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { readDirEntries } from "./read_dir.ts";
 * const fd = fs.openSync("/", "r");
 * const entries = readDirEntries({ fd, base: "/" }, ".", 100_000);
 * fs.closeSync(fd);
 * console.log(entries.some((e) => e.name === "tmp")); // true
 * ```
 */
export function readDirEntries(
  h: DirHandle,
  logical: string,
  maxEntries: number,
  sortKey?: (name: string) => string,
): DirEntry[] {
  const out: DirEntry[] = [];
  try {
    if (STREAMING_DIRS && fs.fstatSync(h.fd).size > HUGE_DIR_BYTES) {
      const dir = fs.opendirSync(h.base);
      try {
        for (let e = dir.readSync(); e !== null; e = dir.readSync()) {
          if (out.length === maxEntries) throw tooMany(logical, maxEntries);
          out.push({ name: e.name, kind: kindOfStats(e) });
        }
      } finally {
        dir.closeSync();
      }
    } else if (hostFs.readDir !== undefined) {
      // The host's own listing (Deno's `readDirSync`, set by cli.ts): the same `getdents`
      // as `readdirSync`, without building and sorting `Dirent`s it then drops.
      for (const e of hostFs.readDir(h.base)) {
        if (out.length === maxEntries) throw tooMany(logical, maxEntries);
        out.push({ name: e.name, kind: kindOfListed(e) });
      }
    } else {
      for (const e of fs.readdirSync(h.base, { withFileTypes: true })) {
        out.push({ name: e.name, kind: kindOfStats(e) });
      }
      if (out.length > maxEntries) throw tooMany(logical, maxEntries);
    }
  } catch (e) {
    if (e instanceof PathError) throw e;
    throw pathErrorFor(e, logical);
  }
  if (sortKey === undefined) {
    out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return out;
  }
  const keyed = out.map((e) => [sortKey(e.name), e] as const);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return keyed.map(([, e]) => e);
}

function kindOfListed(e: ListedEntry): EntryKind {
  return e.isFile ? "file" : e.isDirectory ? "directory" : e.isSymlink ? "symlink" : "other";
}

function tooMany(logical: string, max: number): PathError {
  return new TooManyEntriesError(
    `The folder ${showPath(logical)} has more than ${max.toLocaleString("en-US")} entries; ` +
      "name a smaller folder.",
  );
}
