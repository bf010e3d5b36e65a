/**
 * The workspace's trust anchors stay read-only inside every sandbox: `toolhost.toml`
 * (what is declared), `toolhost.lock` (what may run) and the repository's `.git` (its
 * hooks and `core.fsmonitor` run with the user's full authority at the next `git`
 * command, toolhost's `git_*` tools included). A `write` tool whose Artifact is the
 * workspace root, or a `sandbox_write` path that contains the root (also through a
 * symlink), would otherwise rewrite them from inside and so decide what runs
 * unconfined later — a way out of its sandbox.
 *
 * Each anchor that exists and lies strictly inside a writable path is bound read-only
 * again at the place that path shows it (a bind mount point cannot be renamed or removed
 * either). An anchor that does not exist is not created (a mount point would leave an
 * empty file on the host): a tool that may write the root can create a missing
 * `toolhost.lock` (a lock only ever blocks) or a missing `.git`.
 *
 * @module
 */

import { realpathSync } from "node:fs";
import { join, relative } from "node:path";

/** Workspace-relative names of the trust anchors. */
export const TRUST_ANCHORS: readonly string[] = ["toolhost.toml", "toolhost.lock", ".git"];

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function strictlyWithin(child: string, parent: string): boolean {
  return child.startsWith(parent.endsWith("/") ? parent : `${parent}/`);
}

/**
 * The paths (as a sandbox shows them) to bind read-only over `writable` so that no
 * trust anchor of the workspace at `root` can be changed through them.
 *
 * @example
 * ```ts
 * import { anchorBinds } from "./trust_anchors.ts";
 * anchorBinds("/nonexistent-ws", ["/nonexistent-ws"]); // [] (nothing exists there)
 * ```
 */
export function anchorBinds(root: string, writable: readonly string[]): string[] {
  const anchors = TRUST_ANCHORS.map((a) => real(join(root, a))).filter((a) => a !== undefined);
  if (anchors.length === 0) return [];
  const binds: string[] = [];
  for (const w of writable) {
    const rw = real(w);
    if (rw === undefined) continue;
    for (const a of anchors) {
      if (strictlyWithin(a, rw)) binds.push(join(w, relative(rw, a)));
    }
  }
  return [...new Set(binds)];
}
