/**
 * Pin one declared execution path to a SHA-256.
 *
 * @module
 */

import { readlinkSync } from "node:fs";
import { resolveDeclaredPath } from "./declared_path.ts";
import { directoryDigest, symlinkDigest } from "./dir_digest.ts";
import type { DigestLine } from "./dir_digest.ts";
import { describeFsError, isPinFailure, pinFailure, quotePath } from "./failure.ts";
import { FileChanged, hashRegularFile, hashSmallFileSync, SMALL_FILE_BYTES } from "./hash_file.ts";
import { yieldToEventLoop } from "./limit.ts";
import { resolvePinOptions } from "./options.ts";
import type { PinOptions } from "./options.ts";
import { collectEntries } from "./walk_dir.ts";
import type { PinEntry } from "./walk_dir.ts";

/** Yield to the event loop after this many bytes (or entries) of synchronous hashing. */
const YIELD_EVERY_BYTES = 8 * 1024 * 1024;
const YIELD_EVERY_ENTRIES = 256;

/**
 * Pin `relPath` (workspace-relative, `/`-separated, no `.`/`..`/empty components, no symlink
 * in any component) under `workspaceRoot`: a regular file to the SHA-256 of its bytes, a
 * directory to the SHA-256 of its manifest (see `dir_digest.ts`). Nothing is followed or
 * copied. Budgets are checked from `lstat` sizes before any byte is hashed.
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
    return await hashOrFail(relPath, undefined, () => hashRegularFile(target.abs, target.stat));
  }
  const entries = await collectEntries(target.abs, relPath, budgets);
  return directoryDigest(await digestEntries(relPath, entries));
}

/**
 * Digest entries one at a time: hashing is CPU-bound on this thread and large files already
 * overlap reads with hashing, so parallel files would only add overhead. Small files and
 * symlinks are handled synchronously (no promise per entry), with a yield to the event loop
 * every few MiB or few hundred entries.
 */
async function digestEntries(declared: string, entries: PinEntry[]): Promise<DigestLine[]> {
  const lines: DigestLine[] = [];
  let syncBytes = 0;
  let syncEntries = 0;
  for (const entry of entries) {
    const size = Number(entry.stat.size);
    if (entry.kind === "f" && size > SMALL_FILE_BYTES) {
      const digest = await hashOrFail(
        declared,
        entry,
        () => hashRegularFile(entry.abs, entry.stat),
      );
      lines.push({ rel: entry.rel, kind: entry.kind, digest });
      continue;
    }
    lines.push(digestSmallEntry(declared, entry));
    syncBytes += size;
    syncEntries++;
    if (syncBytes >= YIELD_EVERY_BYTES || syncEntries >= YIELD_EVERY_ENTRIES) {
      syncBytes = 0;
      syncEntries = 0;
      await yieldToEventLoop();
    }
  }
  return lines;
}

/** A symlink or a file of at most `SMALL_FILE_BYTES`, with the same checks, synchronously. */
function digestSmallEntry(declared: string, entry: PinEntry): DigestLine {
  let digest: string;
  try {
    digest = entry.kind === "f"
      ? hashSmallFileSync(entry.abs, entry.stat)
      : symlinkDigest(readlinkSync(entry.abs, { encoding: "buffer" }));
  } catch (e) {
    throw entryFailure(declared, entry, e);
  }
  return { rel: entry.rel, kind: entry.kind, digest };
}

async function hashOrFail(
  declared: string,
  entry: PinEntry | undefined,
  run: () => Promise<string>,
): Promise<string> {
  try {
    return await run();
  } catch (e) {
    throw entryFailure(declared, entry, e);
  }
}

/** The `PreparationFailed` for `e` while hashing `entry` (undefined: the declared file). */
function entryFailure(declared: string, entry: PinEntry | undefined, e: unknown): unknown {
  if (isPinFailure(e)) return e;
  // Named only when something failed: quoting every entry's path up front cost each file.
  const what = entry === undefined ? "it" : `entry ${quotePath(`${declared}/${entry.rel}`)}`;
  if (e instanceof FileChanged) return pinFailure(declared, `${what} ${e.message}`);
  return pinFailure(declared, describeFsError(e, what));
}
