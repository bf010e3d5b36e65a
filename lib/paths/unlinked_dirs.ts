/**
 * Folders toolhost makes below a base it already trusts (the state directory) must be real
 * folders, never symlinks: a repository can ship `.toolhost/state/artifacts` as a link to
 * anywhere (git keeps symlinks), and every registry would then create its artifact
 * folder — bound writable into confined tools, and the root its odek refs are checked
 * against — wherever the link points.
 *
 * @module
 */

import fsp from "node:fs/promises";
import path from "node:path";
import { PreparationFailed } from "../errors/errors.ts";
import { errnoOf } from "./errno.ts";
import { makeDirs } from "./make_dirs.ts";

/**
 * Make `dir` with `mode` where its last `levels` components below their base are each
 * created or kept only as real folders (checked with `lstat`, never followed); the base
 * itself is made as `mkdir -p` would. Throws {@link PreparationFailed} (no path in the
 * message) when one of them is a symlink or not a folder.
 *
 * @example
 * ```ts
 * import { makeUnlinkedDirs } from "./unlinked_dirs.ts";
 * await makeUnlinkedDirs("/tmp/toolhost-doc-state/artifacts/0123", 2, 0o700);
 * ```
 */
export async function makeUnlinkedDirs(dir: string, levels: number, mode: number): Promise<void> {
  const abs = path.resolve(dir);
  const chain: string[] = [];
  let base = abs;
  for (let i = 0; i < levels; i++) {
    chain.unshift(base);
    base = path.dirname(base);
  }
  await makeDirs(base, mode);
  for (const d of chain) {
    try {
      await fsp.mkdir(d, { mode });
    } catch (e) {
      if (errnoOf(e) !== "EEXIST") throw e;
    }
    const st = await fsp.lstat(d);
    if (!st.isDirectory()) {
      throw new PreparationFailed(
        `The state directory's \`${path.relative(base, d)}\` folder is a symlink or not a ` +
          "folder; remove it (toolhost recreates it).",
      );
    }
  }
}
