/**
 * Opening and checking the root folder of a sandbox (sandbox.ts): the root path is trusted
 * configuration and may lead through symlinks — unless the caller says it is a realpath
 * (`exact`), which must then still name the folder opened: no component may have become
 * a symlink or been moved since it was declared. A root already pinned that way
 * (root_pin.ts) is taken over instead of opened again.
 *
 * @module
 */

import fs from "node:fs";
import { PathError } from "../errors/errors.ts";
import { closeQuietly } from "./close_quietly.ts";
import { errnoOf, pathErrorFor } from "./errno.ts";
import { procfsAvailable } from "./procfs_probe.ts";
import type { DirHandle, SandboxOpenOptions } from "./sandbox_types.ts";
import { showPath } from "./show_path.ts";

const C = fs.constants;
/** A root that is trusted configuration is opened following symlinks (not with `exact`). */
const ROOT_FLAGS = C.O_RDONLY | C.O_DIRECTORY;

/**
 * A sandbox root: its descriptor, its realpath, and whether lookups under it go through
 * `/proc/self/fd`.
 *
 * @example
 * ```ts
 * import { openRoot } from "./open_root.ts";
 * const root: import("./open_root.ts").OpenedRoot = openRoot("/tmp");
 * console.log(typeof root.real); // "string"
 * ```
 */
export interface OpenedRoot {
  /** The pinned root directory. */
  root: DirHandle;
  /** The root's realpath. */
  real: string;
  /** Whether lookups go through `/proc/self/fd`. */
  procfs: boolean;
}

/**
 * Open (or, with `exact` and a matching `pinned` root, take over) `physicalDir` as a
 * sandbox root; `logical` names it in errors.
 *
 * @throws {PathError} when it cannot be opened or, with `exact`, is no longer where it was.
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { openRoot } from "./open_root.ts";
 * const { root } = openRoot("/tmp");
 * fs.closeSync(root.fd);
 * ```
 */
export function openRoot(
  physicalDir: string,
  logical = ".",
  opts: SandboxOpenOptions = {},
): OpenedRoot {
  const pin = opts.pinned;
  if (opts.exact && pin !== undefined && pin.fd >= 0 && pin.path === physicalDir) {
    const fd = pin.fd;
    pin.fd = -1; // the sandbox owns it now
    return { root: { fd, base: `/proc/self/fd/${fd}` }, real: physicalDir, procfs: true };
  }
  let fd: number;
  try {
    fd = fs.openSync(physicalDir, opts.exact ? ROOT_FLAGS | C.O_NOFOLLOW : ROOT_FLAGS);
  } catch (e) {
    const swapped = opts.exact && (errnoOf(e) === "ELOOP" || errnoOf(e) === "ENOTDIR");
    throw swapped ? movedRoot(logical) : pathErrorFor(e, logical);
  }
  let real: string;
  try {
    const found = procfsAvailable()
      ? fs.readlinkSync(`/proc/self/fd/${fd}`) // what was opened, whatever the name now says
      : realWithoutProcfs(fd, physicalDir, opts.exact === true);
    if (found === null || (opts.exact && found !== physicalDir)) throw movedRoot(logical);
    real = found;
  } catch (e) {
    closeQuietly(fd);
    throw e instanceof PathError ? e : pathErrorFor(e, logical);
  }
  const procfs = procfsAvailable();
  return { root: { fd, base: procfs ? `/proc/self/fd/${fd}` : real }, real, procfs };
}

/**
 * The root's physical path without procfs: its realpath — or, with `exact`, null when that
 * name no longer leads to the opened folder itself (same device and inode).
 */
function realWithoutProcfs(fd: number, physicalDir: string, exact: boolean): string | null {
  const real = fs.realpathSync(physicalDir);
  if (!exact) return real;
  const named = fs.statSync(real, { bigint: true });
  const opened = fs.fstatSync(fd, { bigint: true });
  return named.dev === opened.dev && named.ino === opened.ino ? real : null;
}

/** The error of a root that no longer is where it was declared. */
function movedRoot(logical: string): PathError {
  return new PathError(
    `${showPath(logical)} was refused: its Artifact folder no longer is where the workspace ` +
      "declared it (moved, or it or a parent replaced, e.g. by a symlink); restore it and retry.",
  );
}
