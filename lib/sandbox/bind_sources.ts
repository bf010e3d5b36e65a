/**
 * bubblewrap resolves a bind's source on the host, following every symlink in it, and its
 * destination inside the new root. A confined tool that may write a folder can leave a
 * relative symlink there (`app/data -> ../../../tmp`): when a later sandbox binds that
 * path (a `sandbox_read` / `sandbox_write` entry, a hidden Artifact), the source resolves
 * to the host's `/tmp` (or `/etc`, `/proc`) and the destination to the sandbox's own, so
 * the host folder is mounted over it. So no path a sandbox binds or hides may run through
 * a symlink below the workspace, below a path this run may write, or below any
 * `sandbox_write` path another declaration of the workspace may write; the run is refused
 * instead (fail closed). Paths above those (an author's own `/home -> /usr/home`) are the
 * author's, not a tool's, and are left alone. A bind's source is checked on the descriptor
 * bwrap then mounts (bind_open.ts), so a swap after the check mounts nothing else; a hidden
 * path (a destination only) is checked here, on its path.
 *
 * @module
 */

import { lstatSync } from "node:fs";
import { isAbsolute, join, sep } from "node:path";
import type { Workspace } from "../workspace/types.ts";
import { confinableDecls } from "./decls.ts";

function isBelow(child: string, parent: string): boolean {
  return child !== parent && child.startsWith(parent.endsWith(sep) ? parent : `${parent}${sep}`);
}

/** The first symlink on `path` strictly below `root`, or undefined (a missing part ends it). */
function symlinkBelow(path: string, root: string): string | undefined {
  const parts = path.slice(root.length).split(sep).filter((p) => p !== "");
  let at = root;
  for (const part of parts) {
    at = at.endsWith(sep) ? `${at}${part}` : `${at}${sep}${part}`;
    try {
      if (lstatSync(at).isSymbolicLink()) return at;
    } catch {
      return undefined; // not there: bwrap's `-try` binds skip it
    }
  }
  return undefined;
}

/**
 * The first of `paths` that runs through a symlink strictly below one of `guarded`
 * (absolute, normalized paths), or undefined when none does.
 *
 * @example
 * ```ts
 * import { symlinkedPath } from "./bind_sources.ts";
 * symlinkedPath(["/usr/bin/env"], ["/tmp/ws"]); // undefined: not below a guarded path
 * ```
 */
export function symlinkedPath(
  paths: readonly string[],
  guarded: readonly string[],
): string | undefined {
  for (const path of paths) {
    for (const root of guarded) {
      if (!isBelow(path, root)) continue;
      if (symlinkBelow(path, root) !== undefined) return path;
    }
  }
  return undefined;
}

const declaredWritable = new WeakMap<Workspace, string[]>();

/**
 * Every path some declaration of `ws` may write besides its Artifact (which lies in the
 * workspace): the `sandbox_write` entries of tools, sessions, extensions and hooks, as
 * absolute paths. Computed once per workspace.
 *
 * @example
 * ```ts
 * import { loadWorkspaceSync } from "../workspace/load_workspace.ts";
 * import { writablePaths } from "./bind_sources.ts";
 * writablePaths(loadWorkspaceSync("examples")); // [] when no declaration has sandbox_write
 * ```
 */
export function writablePaths(ws: Workspace): string[] {
  let out = declaredWritable.get(ws);
  if (out === undefined) {
    const set = new Set<string>();
    for (const d of confinableDecls(ws)) {
      for (const p of d.sandbox?.write ?? []) set.add(isAbsolute(p) ? p : join(ws.root, p));
    }
    out = [...set];
    declaredWritable.set(ws, out);
  }
  return out;
}
