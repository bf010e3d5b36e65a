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
 * @module
 */

import { lstatSync, readlinkSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { resolveDeclaredPath } from "./declared_path.ts";
import { resolvePinOptions } from "./options.ts";
import { collectEntries } from "./walk_dir.ts";

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

function inside(abs: string, allowed: readonly string[]): boolean {
  return allowed.some((a) => below(abs, a));
}

/** Where a link's walk may pass: the pinned paths and their ancestors inside the root. */
interface Scope {
  /** The workspace root (absolute). */
  root: string;
  /** The pinned paths (absolute). */
  allowed: readonly string[];
}

/**
 * On the way to a pinned path: one of its ancestors (whose identity its pin checks), not
 * above the workspace root (what lies there stays behind when the workspace moves).
 */
function onTheWay(abs: string, scope: Scope): boolean {
  return below(abs, scope.root) && scope.allowed.some((a) => below(a, abs));
}

/** Where the link at `abs` leads, or undefined when the walk leaves `scope`. */
function resolveLink(abs: string, scope: Scope, hops: number): string | undefined {
  if (hops > MAX_HOPS) return undefined;
  const { allowed } = scope;
  const target = readlinkSync(abs, "utf8");
  let cur = dirname(abs);
  if (target.startsWith("/")) {
    cur = "/";
  }
  for (const part of target.split("/")) {
    if (part === "" || part === ".") continue;
    cur = part === ".." ? dirname(cur) : join(cur, part);
    if (!inside(cur, allowed) && !onTheWay(cur, scope)) return undefined;
    let isLink = false;
    try {
      isLink = lstatSync(cur).isSymbolicLink();
    } catch {
      continue; // missing: a later creation changes the pinned folder, which is checked
    }
    if (isLink) {
      if (!inside(cur, allowed)) return undefined; // a link outside the pinned paths
      const next = resolveLink(cur, scope, hops + 1);
      if (next === undefined) return undefined;
      cur = next;
    }
  }
  return inside(cur, allowed) ? cur : undefined;
}

/**
 * The first symlink inside one of `paths` (declared execution paths of one tool) whose
 * target leads outside all of them, or undefined.
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
  const targets = await Promise.all(paths.map((p) => resolveDeclaredPath(base, p)));
  const scope: Scope = { root: base, allowed: targets.map((t) => t.abs) };
  for (const [i, t] of targets.entries()) {
    if (t.kind !== "dir") continue;
    const entries = await collectEntries(t.abs, paths[i], resolvePinOptions());
    for (const e of entries) {
      if (e.kind !== "l") continue;
      let ok: string | undefined;
      try {
        ok = resolveLink(e.abs, scope, 0);
      } catch {
        ok = undefined;
      }
      if (ok === undefined) return { declared: paths[i], link: `${paths[i]}/${e.rel}` };
    }
  }
  return undefined;
}
