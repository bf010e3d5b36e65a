/**
 * The trust anchors a confined run could *create*. An anchor that exists is bound
 * read-only (trust_anchors.ts); one that does not exist cannot be: a mount point needs
 * an entry, and bubblewrap creates it on the host (an empty `toolhost.lock` — which every
 * toolhost then refuses as invalid — or an empty `.git`, left behind for good when toolhost
 * dies). So a run whose writable paths contain the workspace root could create a missing
 * `.git` (whose `core.fsmonitor` and hooks the user's next `git` in the workspace — a
 * shell prompt's, an editor's, a `host` tool's — runs with the user's full authority:
 * toolhost's own git tools override them) or a missing `toolhost.lock` (whose extension
 * listings toolhost shows agents before the extension starts), and equally a `.git` in
 * each folder between the root and that writable path (git looks upward for one) — and
 * any run could create a `.git` in a writable Artifact's folder (or above it), which git
 * run there by that Artifact's `host` tools would use first.
 *
 * They are watched instead: each such name missing before the run is looked at when the
 * run has ended, and one that appeared is moved aside (renamed, never followed or
 * deleted: `.git.refused-<hex>`), so it never takes effect, and the run's result becomes
 * an error naming what was moved and where (a confined session or extension server:
 * before and after each call, and when it stops). Not covered: the run's own lifetime
 * (a session's or server's between its calls), during which the created name is there.
 *
 * @module
 */

import { lstatSync, realpathSync, renameSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { dirname, join, relative } from "node:path";
import { TRUST_ANCHORS } from "./trust_anchors.ts";

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function isWithin(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`);
}

function missing(path: string): boolean {
  try {
    lstatSync(path);
    return false;
  } catch (e) {
    return (e as { code?: unknown }).code === "ENOENT";
  }
}

/**
 * The trust anchors missing now that a run with `writable` paths could create: the
 * root's anchors, `.git` in each folder from the root up to a writable path that
 * contains the root, and each of `gits` (canonical `.git` paths git may use: an
 * Artifact's own, trust_anchors.ts `gitAnchors`) whose folder lies in a writable path.
 * `root` is the workspace's canonical root.
 *
 * @example
 * ```ts
 * import { watchedAnchors } from "./anchor_watch.ts";
 * watchedAnchors("/nonexistent/ws", ["/nonexistent/ws"]); // [] (no such writable path)
 * ```
 */
export function watchedAnchors(
  root: string,
  writable: readonly string[],
  gits: readonly string[] = [],
): string[] {
  const out = new Set<string>();
  for (const w of writable) {
    const rw = real(w);
    if (rw === undefined) continue;
    // Any `.git` git may use (trust_anchors.ts gitAnchors) in a folder the run may write.
    for (const g of gits) if (isWithin(dirname(g), rw)) out.add(g);
    if (!isWithin(root, rw)) continue;
    for (const a of TRUST_ANCHORS) out.add(join(root, a));
    for (let d = dirname(root); isWithin(d, rw); d = dirname(d)) {
      out.add(join(d, ".git"));
      if (d === dirname(d)) break;
    }
  }
  return [...out].filter(missing);
}

/** One watched name that a run created, and where it was moved. */
export interface CreatedAnchor {
  /** The name, relative to the workspace root (`.git`, `../.git`, `toolhost.lock`). */
  name: string;
  /** Where it is now, relative to the workspace root; undefined when it could not be moved. */
  movedTo?: string;
}

/**
 * Look at each of `watched` (from {@link watchedAnchors}, before the run) now that the run
 * has ended: one that exists was created by it (or meanwhile) and is renamed aside in
 * its own folder (the entry itself: a symlink is moved, never followed).
 *
 * @example
 * ```ts
 * import { settleAnchors } from "./anchor_watch.ts";
 * settleAnchors("/nonexistent/ws", ["/nonexistent/ws/.git"]); // []
 * ```
 */
export function settleAnchors(root: string, watched: readonly string[]): CreatedAnchor[] {
  const out: CreatedAnchor[] = [];
  for (const path of watched) {
    if (missing(path)) continue;
    const name = relative(root, path);
    const to = `${path}.refused-${randomBytes(4).toString("hex")}`;
    try {
      renameSync(path, to);
      out.push({ name, movedTo: relative(root, to) });
    } catch {
      out.push({ name });
    }
  }
  return out;
}

/**
 * The error text for anchors a run created (see {@link settleAnchors}).
 *
 * @example
 * ```ts
 * import { createdAnchorsMessage } from "./anchor_watch.ts";
 * createdAnchorsMessage([{ name: ".git", movedTo: ".git.refused-0a1b2c3d" }]);
 * ```
 */
export function createdAnchorsMessage(created: readonly CreatedAnchor[]): string {
  const what = created.map((c) =>
    c.movedTo === undefined
      ? `\`${c.name}\` (it could not be moved: remove it before running git or toolhost there)`
      : `\`${c.name}\` (moved to \`${c.movedTo}\`)`
  ).join(", ");
  return `The run was refused after it created ${what}: a confined tool may never create ` +
    "the workspace's `toolhost.lock` or a `.git` git would use, since they decide what " +
    "programs run later, unconfined. Delete what was moved unless you created it yourself.";
}
