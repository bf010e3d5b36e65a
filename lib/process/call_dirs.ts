/**
 * Private per-call directories: `<stateDir>/calls/<random>/{output,tmp}`, mode 0700,
 * created exclusively, canonical (no symlink in the returned paths), and removed robustly
 * — never following symlinks, and fixing permissions a tool may have removed (read-only
 * directories such as Go's module cache) before retrying.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, realpathSync } from "node:fs";
import { chmod, lstat, readdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { CleanupFailed } from "../errors/errors.ts";

/** The private directories of one call. */
export interface CallDirs {
  /** `<stateDir>/calls/<random>` (canonical). */
  root: string;
  /** The tool's output directory (json `context.outputDir`). */
  outputDir: string;
  /** The tool's TMPDIR/TMP/TEMP. */
  tmpDir: string;
  /** Remove everything; idempotent. Rejects with `CleanupFailed` if that is impossible. */
  remove(): Promise<void>;
}

const PRIVATE = 0o700;

/**
 * The folder holding every call's directories under a state dir.
 *
 * @example
 * ```ts
 * import { callsRoot } from "./call_dirs.ts";
 * callsRoot("/state"); // "/state/calls"
 * ```
 */
export function callsRoot(stateDir: string): string {
  return join(resolve(stateDir), "calls");
}

const canonicalRoots = new Map<string, string>();

/** The canonical `<stateDir>/calls`, created (0700) and checked once per state dir. */
function canonicalCallsRoot(stateDir: string, refresh: boolean): string {
  const calls = callsRoot(stateDir);
  const cached = refresh ? undefined : canonicalRoots.get(calls);
  if (cached !== undefined) return cached;
  mkdirSync(calls, { recursive: true, mode: PRIVATE });
  if (!lstatSync(calls).isDirectory()) {
    throw new CleanupFailed("The state directory's `calls` folder is not a directory; remove it.");
  }
  const real = realpathSync(calls);
  canonicalRoots.set(calls, real);
  return real;
}

/** Create `<calls>/<random>` exclusively; retry once if a cached `calls` folder vanished. */
function makeRoot(stateDir: string): string {
  const name = randomBytes(12).toString("hex");
  try {
    const root = join(canonicalCallsRoot(stateDir, false), name);
    mkdirSync(root, { mode: PRIVATE });
    return root;
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOENT") throw e;
    const root = join(canonicalCallsRoot(stateDir, true), name);
    mkdirSync(root, { mode: PRIVATE });
    return root;
  }
}

/**
 * Create a call's private directories under `<stateDir>/calls/`. Modes are 0700 (the
 * umask can only remove bits). The few `mkdir`s are synchronous: they are local and
 * cheap, and avoid thread-pool round trips on the per-call hot path.
 *
 * @example
 * ```ts
 * import { createCallDirs } from "./call_dirs.ts";
 * const dirs = await createCallDirs("/tmp/toolhost-state");
 * try {
 *   console.log(dirs.outputDir.endsWith("/output")); // true
 * } finally {
 *   await dirs.remove();
 * }
 * ```
 */
export function createCallDirs(stateDir: string): Promise<CallDirs> {
  try {
    const root = makeRoot(stateDir);
    const dirs: CallDirs = {
      root,
      outputDir: join(root, "output"),
      tmpDir: join(root, "tmp"),
      remove: memo(() => removeTree(root)),
    };
    try {
      mkdirSync(dirs.outputDir, { mode: PRIVATE });
      mkdirSync(dirs.tmpDir, { mode: PRIVATE });
    } catch (e) {
      return dirs.remove().then(() => Promise.reject(e));
    }
    return Promise.resolve(dirs);
  } catch (e) {
    return Promise.reject(e);
  }
}

function memo(f: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | undefined;
  return () => (p ??= f());
}

/** Make every directory below `path` (not following symlinks) writable and searchable. */
async function unlockTree(path: string): Promise<void> {
  let st;
  try {
    st = await lstat(path);
  } catch {
    return;
  }
  if (!st.isDirectory()) return;
  await chmod(path, PRIVATE).catch(() => {});
  const names = await readdir(path).catch(() => [] as string[]);
  for (const name of names) await unlockTree(join(path, name));
}

/**
 * Remove a directory tree without following symlinks; on a permission error, restore
 * owner permissions on its directories and retry once.
 *
 * @example
 * ```ts
 * import { removeTree } from "./call_dirs.ts";
 * await removeTree("/tmp/does-not-exist"); // resolves
 * ```
 */
export async function removeTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true, maxRetries: 2 });
    return;
  } catch {
    // fall through: fix permissions and retry
  }
  await unlockTree(path);
  try {
    await rm(path, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    throw new CleanupFailed(
      "A tool call's private directory could not be removed; check its permissions.",
    );
  }
}
