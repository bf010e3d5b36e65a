/**
 * Extension readiness for `toolhost tools check --execute`: start every extension an
 * eval admits, initialize it, list its tools, then stop it with confirmed cleanup.
 *
 * @module
 */

import type { Workspace } from "../workspace/types.ts";
import type { Drift } from "../lock/compare.ts";
import type { ExtensionReadiness } from "./extension_server.ts";
import { ExtensionHost, type ExtensionHostOptions } from "./host.ts";

/**
 * Check each extension `evalId` admits; resolves to one report per extension (in the
 * eval's order), `error` set when it is not ready. Throws `CleanupFailed` when a server's
 * process group could not be confirmed gone.
 *
 * @example
 * ```ts
 * import { checkExtensions } from "./readiness.ts";
 * // for (const r of await checkExtensions(ws, "app/review")) console.log(r.name, r.toolsListed);
 * ```
 */
export async function checkExtensions(
  ws: Workspace,
  evalId: string,
  opts: ExtensionHostOptions = {},
): Promise<ExtensionReadiness[]> {
  const host = ExtensionHost.forEval(ws, evalId, opts);
  try {
    return await host.readiness();
  } finally {
    await host.close();
  }
}

/**
 * Like {@link checkExtensions}, and also the differences from the eval's lock (when
 * `opts.lock` is given): extensions not started because their declaration changed, and
 * tools that are new, removed or re-described.
 *
 * @example
 * ```ts
 * import { checkExtensionsAndLock } from "./readiness.ts";
 * // const { readiness, drift } = await checkExtensionsAndLock(ws, "app/review", { lock });
 * ```
 */
export async function checkExtensionsAndLock(
  ws: Workspace,
  evalId: string,
  opts: ExtensionHostOptions = {},
): Promise<{ readiness: ExtensionReadiness[]; drift: Drift[] }> {
  const host = ExtensionHost.forEval(ws, evalId, opts);
  try {
    const readiness = await host.readiness();
    return { readiness, drift: await host.lockDrift() };
  } finally {
    await host.close();
  }
}
