/**
 * The workspace's trust anchors `toolhost.toml` (what is declared) and `toolhost.lock`
 * (what may run) are off limits to the write tools, like git's `.git` (git_path.ts).
 * An Artifact at the workspace root would otherwise let a model declare a new command
 * tool and rewrite the lock to match, deciding what runs unconfined at the next start —
 * the same way out that lib/sandbox/trust_anchors.ts closes for confined tools.
 *
 * Refused by construction, whatever the spelling: a write whose parent folder is the
 * workspace root (same device and inode) and whose name reaches an anchor on some
 * filesystem (any case, trailing dots or spaces, HFS+ ignorable code points), and a write
 * whose existing target is an anchor's file under any other name.
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import { PathError } from "../errors/errors.ts";
import { showPath } from "../paths/show_path.ts";
import { fstatExact, identityKey, lstatExact } from "../paths/exact_stat.ts";
import { TRUST_ANCHORS } from "../sandbox/trust_anchors.ts";
import type { DirHandle } from "../paths/sandbox.ts";

/** The anchors that are files (`.git` is git_path.ts's). */
const ANCHOR_FILES = TRUST_ANCHORS.filter((a) => a !== ".git");

/** Code points HFS+ ignores when it compares names. */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * Whether a name reaches `toolhost.toml` or `toolhost.lock` on some filesystem.
 *
 * @example
 * ```ts
 * import { isAnchorName } from "./anchor_path.ts";
 * isAnchorName("TOOLHOST.LOCK."); // true
 * isAnchorName("toolhost.toml.bak"); // false
 * ```
 */
export function isAnchorName(name: string): boolean {
  const n = name.replace(HFS_IGNORABLE, "").replace(/[. ]+$/, "").toLowerCase();
  return ANCHOR_FILES.includes(n);
}

function refused(logical: string): PathError {
  return new PathError(
    `${showPath(logical)} is the workspace's \`toolhost.toml\` or \`toolhost.lock\`; the write ` +
      "tools never change them, because they decide which programs toolhost runs.",
  );
}

/**
 * Throw when writing `name` in the open folder `dir` would create or change a trust
 * anchor of the workspace at `workspaceRoot`.
 *
 * @throws {PathError} naming the logical path.
 * @example
 * ```ts
 * import { refuseTrustAnchor } from "./anchor_path.ts";
 * // refuseTrustAnchor(target.dir, target.name, "toolhost.toml", ws.root); // throws
 * ```
 */
export function refuseTrustAnchor(
  dir: DirHandle,
  name: string,
  logical: string,
  workspaceRoot: string,
): void {
  if (isAnchorName(name)) {
    const root = fs.statSync(workspaceRoot, { throwIfNoEntry: false });
    if (root === undefined || identityKey(fstatExact(dir.fd)) === identityKey(root)) {
      throw refused(logical);
    }
  }
  const entry = lstatExact(`${dir.base}/${name}`);
  if (entry === undefined) return;
  const id = identityKey(entry);
  for (const a of ANCHOR_FILES) {
    const st = lstatExact(path.join(workspaceRoot, a));
    if (st !== undefined && identityKey(st) === id) throw refused(logical);
  }
}
