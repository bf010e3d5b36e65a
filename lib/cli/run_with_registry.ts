/**
 * Run CLI work against an open registry with a fresh set of lazy sessions that are stopped
 * and cleaned before the command exits — also on SIGINT/SIGTERM/SIGHUP.
 *
 * @module
 */

import { Registry, type RegistryOptions } from "../registry/registry.ts";
import type { SelectionSpec } from "../registry/selection.ts";
import type { Workspace } from "../workspace/types.ts";
import { withProgress } from "./progress.ts";

/**
 * Open a registry, run `work` with an AbortSignal that fires on SIGINT/SIGTERM/SIGHUP, and always
 * close the registry (confirming cleanup) before returning. A terminal on stderr shows a
 * progress line when this takes more than a second (see progress.ts).
 *
 * @example
 * ```ts
 * import { withRegistry } from "./run_with_registry.ts";
 * // await withRegistry(ws, { eval: "app/review" }, {}, (reg, signal) => reg.call("read_app", {}, { signal }));
 * ```
 */
export async function withRegistry<T>(
  ws: Workspace,
  spec: SelectionSpec,
  opts: RegistryOptions,
  work: (reg: Registry, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  return await withProgress("pinning execution paths", async (progress) => {
    const reg = await Registry.openSelection(ws, spec, opts);
    progress.update("running the tool");
    const ctl = new AbortController();
    const onSignal = () => ctl.abort();
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    process.on("SIGHUP", onSignal); // a closed terminal: clean up like SIGINT/SIGTERM
    try {
      return await work(reg, ctl.signal);
    } finally {
      progress.update("stopping sessions and cleaning up");
      await reg.close();
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      process.off("SIGHUP", onSignal);
    }
  });
}
