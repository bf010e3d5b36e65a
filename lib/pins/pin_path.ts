/**
 * Pin one declared execution path to a SHA-256.
 *
 * @module
 */

import type { BigIntStats } from "node:fs";
import { resolveDeclaredPath } from "./declared_path.ts";
import { directoryDigest } from "./dir_digest.ts";
import { describeFsError, isPinFailure, pinFailure } from "./failure.ts";
import { FileChanged, hashRegularFile } from "./hash_file.ts";
import { resolvePinOptions } from "./options.ts";
import type { PinOptions } from "./options.ts";
import { treeDigestLines } from "./tree_pin.ts";

/**
 * Pin `relPath` (workspace-relative, `/`-separated, no `.`/`..`/empty components, no symlink
 * in any component) under `workspaceRoot`: a regular file to the SHA-256 of its bytes, a
 * directory to the SHA-256 of its manifest (see `dir_digest.ts`). Nothing is followed or
 * copied. Budgets are checked from sizes before the bytes they count are read: a file's
 * `lstat`; in a directory each file's `fstat` once it is opened (see `tree_pin.ts`), and
 * every large file only after the whole walk.
 *
 * Throws `PreparationFailed` (naming `relPath` and the reason) when the path is invalid,
 * missing, a symlink, a special file or holds one; holds more than `maxBytes` of file
 * bytes; exceeds the entry limit; or changes while it is hashed.
 *
 * @param workspaceRoot Physical workspace root (never appears in messages).
 * @param relPath Declared execution path.
 * @param opts Budgets: `maxBytes` (default 1 GiB), `maxEntries` (default 10,000).
 * @returns Lowercase hex SHA-256.
 *
 * @example
 * ```ts
 * import { pinPath } from "./pin_path.ts";
 * const sha = await pinPath(new URL("../..", import.meta.url).pathname, "examples/app/tools");
 * console.log(sha); // 64 hex characters
 * ```
 */
export async function pinPath(
  workspaceRoot: string,
  relPath: string,
  opts: PinOptions = {},
): Promise<string> {
  const budgets = resolvePinOptions(opts);
  const target = await resolveDeclaredPath(workspaceRoot, relPath);
  if (target.kind === "file") {
    if (target.stat.size > BigInt(budgets.maxBytes)) {
      throw pinFailure(
        relPath,
        `it holds more than ${budgets.maxBytes} bytes of file data (the pin limit)`,
      );
    }
    return await hashDeclaredFile(relPath, target.abs, target.stat);
  }
  return directoryDigest(await treeDigestLines(target, relPath, budgets));
}

/** Hash the declared file itself; a failure names it as "it". */
async function hashDeclaredFile(declared: string, abs: string, stat: BigIntStats): Promise<string> {
  try {
    return await hashRegularFile(abs, stat);
  } catch (e) {
    if (isPinFailure(e)) throw e;
    if (e instanceof FileChanged) throw pinFailure(declared, `it ${e.message}`);
    throw pinFailure(declared, describeFsError(e));
  }
}
