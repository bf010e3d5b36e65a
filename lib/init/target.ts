/**
 * Where `toolhost init` scaffolds: the workspace folder, whether its manifest exists,
 * the folder Artifact that receives the files, and the agent eval that publishes them.
 *
 * @module
 */

import { dirname, resolve } from "node:path";
import process from "node:process";
import { InvocationError } from "../errors/errors.ts";
import { loadWorkspaceSync } from "../workspace/load_workspace.ts";
import { holdsManifest, MANIFEST_NAME } from "../workspace/manifest_file.ts";
import { isValidName } from "../workspace/names.ts";
import { evalScope } from "../workspace/scope.ts";
import type { Artifact, Workspace } from "../workspace/types.ts";

/** The Artifact `toolhost init` uses when a new manifest is created without `--artifact`. */
export const DEFAULT_ARTIFACT = "tools";

/** The name of the agent eval `toolhost init` declares (`<artifact>/agent`). */
export const DEFAULT_EVAL = "agent";

/** Where a scaffold goes. */
export interface InitTarget {
  /** Absolute workspace folder (it may not exist yet when the manifest is new). */
  root: string;
  /** Does `toolhost.toml` exist already? */
  manifestExists: boolean;
  /** The folder Artifact receiving the files. */
  artifactId: string;
  /** Its workspace-relative POSIX path. */
  artifactPath: string;
  /** Name of the agent eval that publishes the tools (`evalId` is `<artifact>/<name>`). */
  evalName: string;
  /** Full id of that eval. */
  evalId: string;
  /** True when the eval must be declared (new manifest, or no agent eval covers it). */
  declareEval: boolean;
}

/** Options of {@linkcode resolveTarget}. */
export interface TargetOptions {
  /** `--repo DIR`. Default: the nearest folder with toolhost.toml, else `cwd`. */
  repo?: string;
  /** `--artifact ID`. Default: `tools` (new manifest) or the first folder Artifact. */
  artifact?: string;
  /** Folder to resolve from. Default `process.cwd()`. */
  cwd?: string;
}

function workspaceFolder(repo: string | undefined, cwd: string): string {
  if (repo !== undefined) return resolve(cwd, repo);
  for (let dir = resolve(cwd);; dir = dirname(dir)) {
    if (holdsManifest(dir)) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}

/**
 * Decide where to scaffold. An existing manifest is loaded first (a
 * `DeclarationError` if it is already invalid); `--artifact` must then name one of
 * its folder Artifacts (an `InvocationError`, exit 2, otherwise).
 *
 * @example
 * ```ts
 * import { resolveTarget } from "./target.ts";
 * const t = resolveTarget({ repo: "my-tools" });
 * console.log(t.evalId); // "tools/agent" for a new workspace
 * ```
 */
export function resolveTarget(o: TargetOptions = {}): InitTarget {
  const root = workspaceFolder(o.repo, o.cwd ?? process.cwd());
  if (!holdsManifest(root)) {
    const id = o.artifact ?? DEFAULT_ARTIFACT;
    if (!isValidName(id)) {
      throw new InvocationError(
        "--artifact must match [a-z0-9][a-z0-9_-]* and be at most 64 characters",
      );
    }
    return {
      root,
      manifestExists: false,
      artifactId: id,
      artifactPath: id,
      evalName: DEFAULT_EVAL,
      evalId: `${id}/${DEFAULT_EVAL}`,
      declareEval: true,
    };
  }
  const ws = loadWorkspaceSync(root);
  const artifact = pickArtifact(ws, o.artifact);
  const covering = [...ws.evals.values()].filter((e) =>
    e.audience === "agent" && evalScope(ws, e.id).includes(artifact.id)
  );
  const ev = covering.find((e) => e.artifactId === artifact.id) ?? covering[0];
  const evalName = ev?.name ?? freeEvalName(Object.keys(artifact.evals));
  return {
    root: ws.root,
    manifestExists: true,
    artifactId: artifact.id,
    artifactPath: artifact.relPath,
    evalName,
    evalId: ev?.id ?? `${artifact.id}/${evalName}`,
    declareEval: ev === undefined,
  };
}

function pickArtifact(ws: Workspace, id: string | undefined): Artifact {
  if (id === undefined) {
    const first = [...ws.artifacts.values()].find((a) => a.kind === "folder");
    if (first === undefined) {
      throw new InvocationError(
        `${MANIFEST_NAME} declares no folder Artifact to hold the new files; declare one (e.g. [artifacts.tools] path = "tools") or use --repo with a new folder`,
      );
    }
    return first;
  }
  const a = ws.artifacts.get(id);
  if (a === undefined) {
    throw new InvocationError(
      `--artifact: ${MANIFEST_NAME} declares no Artifact \`${id}\`; run \`toolhost graph\` to see its Artifacts`,
    );
  }
  if (a.kind !== "folder") {
    throw new InvocationError(
      `--artifact: \`${id}\` is a file Artifact; tools are scaffolded into a folder Artifact`,
    );
  }
  return a;
}

/** `agent`, or `agent-2`, `agent-3`... when an eval of that name exists (a human one). */
function freeEvalName(taken: string[]): string {
  if (!taken.includes(DEFAULT_EVAL)) return DEFAULT_EVAL;
  for (let i = 2;; i++) if (!taken.includes(`${DEFAULT_EVAL}-${i}`)) return `${DEFAULT_EVAL}-${i}`;
}
