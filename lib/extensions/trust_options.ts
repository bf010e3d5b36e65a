/**
 * The extension-host options an open registry implies: its lock (so the
 * extensions are verified against the same `toolhost.lock` entry) and its artifact
 * directory and store (so oversized results become artifacts `get_artifact_field` reads).
 *
 * @module
 */

import type { ArtifactStore } from "../artifacts/store.ts";
import { ExtensionLockCheck } from "../lock/extension_lock.ts";
import type { RegistryLock } from "../lock/registry_lock.ts";
import type { Workspace } from "../workspace/types.ts";
import type { ExtensionHostOptions } from "./host.ts";

/** What {@link registryHostOptions} reads of an open registry. */
export interface RegistryTrust {
  /** The workspace. */
  readonly workspace: Workspace;
  /** The eval served (undefined: an Artifact selection, which has no extensions). */
  readonly selection: { readonly evalId?: string };
  /** The author's environment. */
  readonly env: Record<string, string>;
  /** The state directory (hidden from confined servers). */
  readonly stateDir: string;
  /** Where oversized results become artifacts. */
  readonly artifactDir: string;
  /** The registry's artifact store. */
  readonly artifacts: ArtifactStore;
  /** The verified lock, if one applies. */
  readonly lock: RegistryLock | undefined;
}

/**
 * `{ artifacts, stateDir, lock }` for `ExtensionHost.forEval` from an open registry.
 *
 * @example
 * ```ts
 * import { registryHostOptions } from "./trust_options.ts";
 * // ExtensionHost.forEval(reg.workspace, evalId, { ...registryHostOptions(reg) });
 * ```
 */
export function registryHostOptions(reg: RegistryTrust): ExtensionHostOptions {
  const out: ExtensionHostOptions = {
    artifacts: { dir: reg.artifactDir, store: reg.artifacts },
    stateDir: reg.stateDir, // hidden from confined servers
  };
  const evalId = reg.selection.evalId;
  if (reg.lock && evalId !== undefined) {
    const root = reg.workspace.root;
    out.lock = new ExtensionLockCheck(evalId, reg.lock.locked, root, reg.env, reg.lock.evalDrift());
  }
  return out;
}
