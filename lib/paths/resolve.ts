/**
 * Resolve a logical path for the Artifact that declared a built-in: which Artifact it
 * reaches (a descendant entered through a child folder, if any), and which components
 * to open beneath which physical root. A file Artifact exposes only its target file.
 *
 * @module
 */

import path from "node:path";
import { PathError } from "../errors/errors.ts";
import type { ArtifactView, BuiltinEnv } from "../builtins/context.ts";
import { joinLogical, validateLogicalPath } from "./logical.ts";
import { showPath } from "./show_path.ts";

/** A resolved logical path. */
export interface ResolvedPath {
  /** The declaring Artifact. */
  artifactId: string;
  /** The Artifact the path reaches (the declaring one unless it enters a descendant). */
  resolvedArtifactId: string;
  /** The logical path as requested (`.` for the root). */
  path: string;
  /** The reached Artifact. */
  artifact: ArtifactView;
  /** Physical folder to pin as the sandbox root. */
  rootDir: string;
  /** Components to open beneath `rootDir`. */
  components: string[];
  /**
   * Set when the reached Artifact is a file Artifact: its file name. With no components
   * the path is that Artifact's virtual root, which holds just this file.
   */
  fileOnly?: string;
}

/** Options of {@linkcode resolveLogicalPath}. */
export interface ResolveOptions {
  /** Accept the lone `.` as the root (list/glob/grep). Default false. */
  allowDotRoot?: boolean;
  /** Name of the argument in messages. Default `path`. */
  label?: string;
}

/** What a logical path (relative to the declaring Artifact) belongs to, if a descendant. */
export interface DescendantHit {
  /** The descendant's logical key. */
  key: string;
  /** Its view. */
  view: ArtifactView;
  /** Whether the eval admits it. */
  admitted: boolean;
}

/**
 * The descendant Artifact whose logical key is the longest prefix of `components`.
 *
 * @example
 * ```ts
 * import { findDescendant } from "./resolve.ts";
 * // with env.descendants = {"rules" → spec}:
 * // findDescendant(env, ["rules", "a.md"])?.view.id === "spec"
 * ```
 */
export function findDescendant(
  env: BuiltinEnv,
  components: readonly string[],
): DescendantHit | undefined {
  if (env.descendants.size === 0) return undefined;
  for (let k = components.length; k >= 1; k--) {
    const key = components.slice(0, k).join("/");
    const hit = env.descendants.get(key);
    if (hit) return { key, view: hit.view, admitted: hit.admitted };
  }
  return undefined;
}

function notAdmitted(key: string, id: string): PathError {
  return new PathError(
    `${showPath(key)} belongs to Artifact \`${id}\`, which this eval does not admit; ` +
      "it cannot be read through this tool.",
  );
}

function resolveInFile(
  base: Omit<ResolvedPath, "rootDir" | "components" | "fileOnly">,
  view: ArtifactView,
  rest: string[],
  shownPrefix: string,
): ResolvedPath {
  const name = path.basename(view.physicalPath);
  if (rest.length === 0 || (rest.length === 1 && rest[0] === name)) {
    return { ...base, rootDir: view.cwd, components: rest, fileOnly: name };
  }
  throw new PathError(
    `${
      showPath(base.path)
    } does not exist: the file Artifact${shownPrefix} exposes only its file ` +
      `${showPath(name)}.`,
  );
}

/**
 * Resolve a logical path (undefined = the root) for the declaring Artifact of `env`.
 *
 * @throws {PathError} for invalid paths, non-admitted descendants, and paths a file
 * Artifact does not expose.
 * @example
 * ```ts
 * import { resolveLogicalPath } from "./resolve.ts";
 * // app owns child folder `rules` declared as `spec`:
 * // resolveLogicalPath(env, "rules/requirements.md").resolvedArtifactId === "spec"
 * ```
 */
export function resolveLogicalPath(
  env: BuiltinEnv,
  logical: string | undefined,
  options: ResolveOptions = {},
): ResolvedPath {
  const comps = logical === undefined ? [] : validateLogicalPath(logical, options);
  const declaring = env.declaring;
  const shown = joinLogical(comps);
  const base = {
    artifactId: declaring.id,
    resolvedArtifactId: declaring.id,
    path: shown,
    artifact: declaring,
  };
  if (declaring.kind === "file") return resolveInFile(base, declaring, comps, "");
  const hit = findDescendant(env, comps);
  if (!hit) return { ...base, rootDir: declaring.physicalPath, components: comps };
  if (!hit.admitted) throw notAdmitted(hit.key, hit.view.id);
  const rest = comps.slice(hit.key.split("/").length);
  const reached = {
    ...base,
    resolvedArtifactId: hit.view.id,
    artifact: hit.view,
  };
  if (hit.view.kind === "file") {
    // The key names the file itself; its virtual root is not addressable from the parent.
    if (rest.length > 0) throw new PathError(`${showPath(hit.key)} is a file, not a folder.`);
    return {
      ...reached,
      rootDir: hit.view.cwd,
      components: [path.basename(hit.view.physicalPath)],
      fileOnly: path.basename(hit.view.physicalPath),
    };
  }
  return { ...reached, rootDir: hit.view.physicalPath, components: rest };
}
