/**
 * Folders toolhost makes below a base it already trusts (the state directory) must be real
 * folders, never symlinks: a repository can ship `.toolhost/state/artifacts` as a link to
 * anywhere (git keeps symlinks), and every registry would then create its artifact
 * folder — bound writable into confined tools, and the root its odek refs are checked
 * against — wherever the link points.
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import { PreparationFailed } from "../errors/errors.ts";
import { errnoOf } from "./errno.ts";
import { makeDirsSync } from "./make_dirs.ts";

/**
 * Make `dir` with `mode` where its last `levels` components below their base are each
 * created or kept only as real folders (checked with `lstat`, never followed); the base
 * itself is made as `mkdir -p` would. Throws {@link PreparationFailed} (no path in the
 * message) when one of them is a symlink or not a folder.
 *
 * Synchronous: it runs before every command-tool call, where the folders nearly always
 * exist already, and a few `lstat`s cost far less than as many awaited operations (under
 * Deno each one is a thread-pool round trip: about 1 ms per call, measured through
 * `Registry.call`, against well under 0.1 ms).
 *
 * @example
 * ```ts
 * import { makeUnlinkedDirsSync } from "./unlinked_dirs.ts";
 * makeUnlinkedDirsSync("/tmp/toolhost-doc-state/artifacts/0123", 2, 0o700);
 * ```
 */
export function makeUnlinkedDirsSync(dir: string, levels: number, mode: number): void {
  const abs = path.resolve(dir);
  const chain: string[] = [];
  let base = abs;
  for (let i = 0; i < levels; i++) {
    chain.unshift(base);
    base = path.dirname(base);
  }
  makeDirsSync(base, mode);
  for (const d of chain) {
    // Already there (the usual case): only its kind is checked, never followed.
    let st = fs.lstatSync(d, { throwIfNoEntry: false });
    if (st === undefined) {
      try {
        fs.mkdirSync(d, { mode });
      } catch (e) {
        if (errnoOf(e) !== "EEXIST") throw e;
      }
      st = fs.lstatSync(d);
    }
    if (!st.isDirectory()) {
      throw new PreparationFailed(
        `The state directory's \`${path.relative(base, d)}\` folder is a symlink or not a ` +
          "folder; remove it (toolhost recreates it).",
      );
    }
  }
}
