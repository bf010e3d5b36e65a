/**
 * The execution-path pins of an `[extensions.NAME]` server: the workspace files and
 * folders it runs besides its command and operand files (modules its entry point imports,
 * a package folder), declared in `execution_paths` and hashed exactly as a command tool's
 * (`pin_snapshot.ts`; the digests are `pinPath`'s). `toolhost lock` records them in the
 * extension's lock entry; they are hashed again before every start of the server, so a
 * module changed after the lock (or, without a lock, after the first start) is never run.
 *
 * A cache keeps each path's snapshot, so checking again re-hashes only what moved.
 *
 * @module
 */

import { PreparationFailed } from "../errors/errors.ts";
import { showPath } from "../paths/show_path.ts";
import { type PathSnapshot, snapshotPath } from "../pins/pin_snapshot.ts";
import type { ExtensionDecl } from "../workspace/parse_extensions.ts";
import type { PathPins } from "./lock_file.ts";

/**
 * The digest recorded for a declared path that cannot be pinned now (missing, a symlink,
 * over a budget): never a SHA-256, so it differs from every locked pin.
 *
 * @example
 * ```ts
 * import { UNPINNABLE } from "./extension_pins.ts";
 * UNPINNABLE; // "unpinnable"
 * ```
 */
export const UNPINNABLE = "unpinnable";

/** Snapshots of declared paths by path, reused between checks (only moved files re-read). */
export type PinCache = Map<string, PathSnapshot>;

/** Options of {@link extensionPathPins}. */
export interface ExtensionPinOptions {
  /** Snapshots to reuse and update. */
  cache?: PinCache;
  /**
   * A path that cannot be pinned: `throw` a `PreparationFailed` naming the extension and
   * the path (`toolhost lock`), or record it as {@link UNPINNABLE} (a check, which then
   * shows it as changed). Default `throw`.
   */
  onFailure?: "throw" | "record";
}

/**
 * The pins of an extension's declared execution paths (declared path → SHA-256), or
 * undefined when it declares none.
 *
 * @example
 * ```ts
 * import { extensionPathPins } from "./extension_pins.ts";
 * const pins = await extensionPathPins(".", { name: "fx", executionPaths: ["lib/pins"] });
 * pins?.["lib/pins"].length; // 64
 * ```
 */
export async function extensionPathPins(
  root: string,
  decl: Pick<ExtensionDecl, "name" | "executionPaths">,
  opts: ExtensionPinOptions = {},
): Promise<PathPins | undefined> {
  const paths = decl.executionPaths ?? [];
  if (paths.length === 0) return undefined;
  const out: PathPins = Object.create(null);
  for (const path of paths) {
    try {
      const snap = await snapshotPath(root, path, {}, opts.cache?.get(path));
      opts.cache?.set(path, snap);
      out[path] = snap.digest;
    } catch (e) {
      if (!(e instanceof PreparationFailed)) throw e;
      opts.cache?.delete(path);
      if (opts.onFailure === "record") {
        out[path] = UNPINNABLE;
        continue;
      }
      throw new PreparationFailed(`extension ${showPath(decl.name)}: ${e.message}`);
    }
  }
  return out;
}

/**
 * The first declared path whose digest differs between two sets of pins (missing on one
 * side included), or undefined when they agree.
 *
 * @example
 * ```ts
 * import { changedPin } from "./extension_pins.ts";
 * changedPin({ "ext/a.mjs": "1" }, { "ext/a.mjs": "2" }); // "ext/a.mjs"
 * ```
 */
export function changedPin(
  before: PathPins | undefined,
  now: PathPins | undefined,
): string | undefined {
  const b = before ?? {};
  const n = now ?? {};
  for (const path of new Set([...Object.keys(b), ...Object.keys(n)])) {
    if (!Object.hasOwn(b, path) || !Object.hasOwn(n, path) || b[path] !== n[path]) return path;
  }
  return undefined;
}
