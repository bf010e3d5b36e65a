/**
 * Walk a relative path component by component with `lstat`, never following a symlink:
 * the one walk behind Artifact paths, fixed targets, execution paths and the per-call
 * file-target check.
 *
 * @module
 */

import { lstatSync, type Stats } from "node:fs";
import { join } from "node:path";

/** The outcome of {@link lstatPath}. */
export type LstatPathResult =
  | { ok: true; path: string; stat: Stats }
  | {
    ok: false;
    /** `missing`, `symlink`, or `not-folder` (an inner component is not a folder). */
    reason: "missing" | "symlink" | "not-folder";
    /** The relative prefix where the walk stopped. */
    at: string;
  };

/**
 * lstat every component of `rel` below `base`; stop at the first missing component,
 * symlink, or inner non-folder.
 *
 * @example
 * ```ts
 * import { lstatPath } from "./lstat_path.ts";
 * const r = lstatPath("/", "etc/hostname");
 * if (r.ok) console.log(r.stat.isFile());
 * ```
 */
export function lstatPath(base: string, rel: string): LstatPathResult {
  let cur = base;
  const parts = rel.split("/");
  for (let i = 0; i < parts.length; i++) {
    cur = join(cur, parts[i]);
    const at = parts.slice(0, i + 1).join("/");
    let st: Stats;
    try {
      st = lstatSync(cur);
    } catch {
      return { ok: false, reason: "missing", at };
    }
    if (st.isSymbolicLink()) return { ok: false, reason: "symlink", at };
    if (i === parts.length - 1) return { ok: true, path: cur, stat: st };
    if (!st.isDirectory()) return { ok: false, reason: "not-folder", at };
  }
  return { ok: false, reason: "missing", at: rel };
}
