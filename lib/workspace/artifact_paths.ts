/**
 * Resolve declared Artifact paths: they must exist, be a folder or a regular file, and
 * have no symlink in any component. Also links children to their nearest folder parent.
 *
 * @module
 */

import { dirname } from "node:path";
import { lstatPath } from "./lstat_path.ts";
import type { Problems } from "./problems.ts";
import { relPathProblem } from "./rel_path.ts";
import type { Artifact, ArtifactKind } from "./types.ts";

/**
 * Check a declared path on disk; returns its kind and physical path, or records a problem.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { resolveArtifactPath } from "./artifact_paths.ts";
 * resolveArtifactPath(new Problems("t", ""), "artifacts.app.path", "/ws", "app");
 * ```
 */
export function resolveArtifactPath(
  p: Problems,
  at: string,
  root: string,
  rel: string,
): { kind: ArtifactKind; physicalPath: string; cwd: string } | undefined {
  if (rel === ".") return { kind: "folder", physicalPath: root, cwd: root };
  const why = relPathProblem(rel);
  if (why) {
    p.add(at, `must be a workspace-relative path (or "."): it ${why}`);
    return undefined;
  }
  const r = lstatPath(root, rel);
  if (!r.ok) {
    const why = {
      missing: `does not exist (\`${r.at}\` is missing)`,
      symlink: `must not go through a symlink (\`${r.at}\` is one)`,
      "not-folder": `\`${r.at}\` is not a folder`,
    }[r.reason];
    p.add(at, why);
    return undefined;
  }
  if (r.stat.isDirectory()) return { kind: "folder", physicalPath: r.path, cwd: r.path };
  if (r.stat.isFile()) return { kind: "file", physicalPath: r.path, cwd: dirname(r.path) };
  p.add(at, "must name a folder or a regular file");
  return undefined;
}

/**
 * Set `parent` and `children` for every Artifact: a child lies inside a folder Artifact;
 * its parent is the nearest such folder. Records duplicate paths and children of files.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { linkChildren } from "./artifact_paths.ts";
 * linkChildren(new Problems("t", ""), new Map());
 * ```
 */
export function linkChildren(p: Problems, artifacts: Map<string, Artifact>): void {
  const byPath = new Map<string, string>();
  for (const a of artifacts.values()) {
    const other = byPath.get(a.relPath);
    if (other) p.add(`${a.keyPath}.path`, `is the same path as Artifact \`${other}\``);
    byPath.set(a.relPath, a.id);
  }
  for (const a of artifacts.values()) {
    let best: Artifact | undefined;
    for (const b of artifacts.values()) {
      if (b === a || b.kind !== "folder" || !isInside(a.relPath, b.relPath)) continue;
      if (!best || b.relPath.length > best.relPath.length || best.relPath === ".") best = b;
    }
    if (!best) continue;
    a.parent = best.id;
    const logical = best.relPath === "." ? a.relPath : a.relPath.slice(best.relPath.length + 1);
    best.children[logical] = a.id;
  }
}

function isInside(child: string, parent: string): boolean {
  if (parent === ".") return child !== ".";
  return child.startsWith(`${parent}/`);
}
