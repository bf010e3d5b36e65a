/**
 * The extension-host options an open registry implies: its lock (so the
 * extensions are verified against the same `toolhost.lock` entry) and its artifact
 * directory and store (so oversized results become artifacts `get_artifact_field` reads).
 *
 * @module
 */

import { ExtensionLockCheck } from "../../lock/extension_lock.ts";
import type { Registry } from "../../registry/registry.ts";
import type { ExtensionHostOptions } from "./host.ts";

/**
 * `{ artifacts, lock }` for `ExtensionHost.forEval` from an open registry.
 *
 * @example
 * ```ts
 * import { registryHostOptions } from "./trust_options.ts";
 * // ExtensionHost.forEval(reg.workspace, evalId, { ...registryHostOptions(reg) });
 * ```
 */
export function registryHostOptions(reg: Registry): ExtensionHostOptions {
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
