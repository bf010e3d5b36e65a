/**
 * Symlinks inside pinned folders, for `toolhost lock`. A folder's pin covers a symlink by
 * its target text only (the seed's digest), so code reached through a link that leads
 * outside the tool's pinned paths would run unpinned. Locking refuses such a tool, naming
 * the link; a link that stays inside the pinned paths is fine, because what it leads to
 * is pinned by content.
 *
 * A link's target is resolved the way the kernel does — component by component, a link
 * met on the way resolved in turn (at most 40), `..` taken from where the walk actually
 * is — and every place the walk passes must be inside the pinned paths or one of their
 * ancestors inside the workspace root (which their pins' identities cover), so no folder
 * outside them (which could be swapped later) decides where the link leads. An ancestor
 * that is itself a link is refused. So is a link whose walk passes above the workspace
 * root — an absolute target, or `../../../<root's name>/…`: it names the workspace by
 * where it lies now, and once the workspace is moved (a checkout elsewhere, the lock
 * committed with it) the same target text, still matching its pin, leads out of it.
 *
 * The walk reads nothing: it runs on the snapshots the pins were computed from
 * (`pin_snapshot.ts`) — each link's target text as it was hashed, each place the walk
 * passes a link or not as the pins' walks found it. A second look at the file system
 * could see a link swapped between the pin and the check (leading out when hashed,
 * inside when checked, put back after), and the lock would record a leaving link's text
 * as fine. Where two pinned paths overlap and their snapshots disagree about an entry
 * (the workspace changed between their walks), a walk passing it is refused.
 *
 * @module
 */

import { dirname, join, resolve, sep } from "node:path";
import { type PathSnapshot, snapshotPath } from "./pin_snapshot.ts";

const MAX_HOPS = 40;

/** A link that leads outside the pinned paths. */
export interface LeavingLink {
  /** The declared execution path (a folder) holding it. */
  declared: string;
  /** The link's logical path (`<declared>/<rel>`). */
  link: string;
}

function below(abs: string, dir: string): boolean {
  return abs === dir || abs.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** One pinned path as its snapshot recorded it: its links by physical path. */
interface Pinned {
  declared: string;
  abs: string;
  links: Map<string, { rel: string; target: string | undefined }>;
}

/** Where a link's walk may pass, and all it may know: the pinned paths' snapshots. */
interface Scope {
  /** The workspace root (absolute). */
  root: string;
  /** The pinned paths. */
  pinned: readonly Pinned[];
}

function inside(abs: string, scope: Scope): boolean {
  return scope.pinned.some((p) => below(abs, p.abs));
}

/**
 * On the way to a pinned path: one of its ancestors (whose identity its pin checks), not
 * above the workspace root (what lies there stays behind when the workspace moves).
 */
function onTheWay(abs: string, scope: Scope): boolean {
  return below(abs, scope.root) && scope.pinned.some((p) => below(p.abs, abs));
}

/**
 * The target text of the link at `abs` as the snapshots hashed it; undefined when it is
 * no link in them (a pinned path itself, and each of its ancestors inside the root, was
 * checked not to be one when pinned); null when the snapshots disagree (the workspace
 * changed between the walks of overlapping paths).
 */
function linkAt(abs: string, scope: Scope): string | undefined | null {
  let seen: string | undefined | null = null;
  for (const p of scope.pinned) {
    let text: string | undefined | null;
    if (below(abs, p.abs)) {
      const entry = p.links.get(abs);
      text = entry === undefined ? undefined : entry.target ?? null;
    } else if (below(p.abs, abs) && below(abs, scope.root)) {
      text = undefined; // on the way to a pinned path: checked to be no link
    } else continue;
    if (text === null) return null;
    if (seen !== null && seen !== text) return null;
    seen = text;
  }
  return seen === null ? undefined : seen;
}

/** Where the link at `abs` leads, or undefined when the walk leaves `scope`. */
function resolveLink(abs: string, scope: Scope, hops: number): string | undefined {
  if (hops > MAX_HOPS) return undefined;
  const target = linkAt(abs, scope);
  if (typeof target !== "string") return undefined; // null: the snapshots disagree
  let cur = target.startsWith("/") ? "/" : dirname(abs);
  for (const part of target.split("/")) {
    if (part === "" || part === ".") continue;
    cur = part === ".." ? dirname(cur) : join(cur, part);
    if (!inside(cur, scope) && !onTheWay(cur, scope)) return undefined;
    const next = linkAt(cur, scope);
    if (next === null) return undefined;
    if (next === undefined) continue; // no link: a later change alters a pin, which is checked
    const to = resolveLink(cur, scope, hops + 1);
    if (to === undefined) return undefined;
    cur = to;
  }
  return inside(cur, scope) ? cur : undefined;
}

function pinnedOf(snap: PathSnapshot): Pinned {
  const links = new Map<string, { rel: string; target: string | undefined }>();
  for (const e of snap.entries.values()) {
    if (e.kind === "l") links.set(resolve(e.abs), { rel: e.rel, target: e.target });
  }
  return { declared: snap.declared, abs: resolve(snap.abs), links };
}

/**
 * The first symlink inside one of `snaps` (the snapshots of one tool's declared execution
 * paths, in declared order, as pinned under `root`) whose target leads outside all of
 * them, or undefined. Reads nothing: only the snapshots' link texts decide.
 *
 * @example
 * ```ts
 * import { leavingLink } from "./link_scope.ts";
 * import { snapshotPath } from "./pin_snapshot.ts";
 * console.log(leavingLink(".", [await snapshotPath(".", "lib/pins")])); // undefined
 * ```
 */
export function leavingLink(
  root: string,
  snaps: readonly PathSnapshot[],
): LeavingLink | undefined {
  const scope: Scope = { root: resolve(root), pinned: snaps.map(pinnedOf) };
  for (const p of scope.pinned) {
    for (const [abs, { rel }] of p.links) {
      if (resolveLink(abs, scope, 0) === undefined) {
        return { declared: p.declared, link: `${p.declared}/${rel}` };
      }
    }
  }
  return undefined;
}

/**
 * The first symlink inside one of `paths` (declared execution paths of one tool) whose
 * target leads outside all of them, or undefined: each path is pinned now and
 * {@link leavingLink} decides on those snapshots. A caller that pinned the paths already
 * passes its own snapshots to {@link leavingLink} instead, so the texts checked are the
 * ones it hashed.
 *
 * @example
 * ```ts
 * import { linkLeaving } from "./link_scope.ts";
 * console.log(await linkLeaving(".", ["lib/pins"])); // undefined: no link leaves
 * ```
 */
export async function linkLeaving(
  root: string,
  paths: readonly string[],
): Promise<LeavingLink | undefined> {
  const base = resolve(root);
  const snaps = await Promise.all(paths.map((p) => snapshotPath(base, p)));
  return leavingLink(base, snaps);
}
