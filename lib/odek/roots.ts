/**
 * Artifact roots: resolution and containment with a real directory boundary.
 *
 * @module
 */

import { promises as fsp } from "node:fs";
import { isAbsolute, sep } from "node:path";

/**
 * Resolve every root with `realpath` and keep the ones that are existing directories.
 * A root that is not an absolute path, is missing, cannot be resolved or is not a
 * directory is skipped (it can admit nothing). The result may be empty.
 *
 * @example
 * ```ts
 * import { resolveRoots } from "./roots.ts";
 * const roots = await resolveRoots(["/tmp", "/does/not/exist"]); // e.g. ["/tmp"]
 * ```
 */
export async function resolveRoots(roots: readonly unknown[]): Promise<string[]> {
  const out: string[] = [];
  for (const root of roots) {
    if (typeof root !== "string" || !isAbsolute(root) || root.includes("\0")) continue;
    try {
      const real = await fsp.realpath(root);
      if ((await fsp.stat(real)).isDirectory() && !out.includes(real)) out.push(real);
    } catch {
      // A missing or unreadable root admits nothing.
    }
  }
  return out;
}

/**
 * Whether the resolved path `p` is one of `roots` or lies below one of them. The
 * boundary is a real directory separator: root `/x/out` does not contain `/x/out2/f`.
 * Both sides must already be resolved with `realpath`.
 *
 * @example
 * ```ts
 * import { isInsideRoots } from "./roots.ts";
 * isInsideRoots("/x/out/f", ["/x/out"]); // true
 * isInsideRoots("/x/out2/f", ["/x/out"]); // false
 * ```
 */
export function isInsideRoots(p: string, roots: readonly string[]): boolean {
  for (const root of roots) {
    if (p === root) return true;
    const prefix = root.endsWith(sep) ? root : root + sep;
    if (p.length > prefix.length && p.startsWith(prefix)) return true;
  }
  return false;
}
