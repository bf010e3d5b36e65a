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
import { Interrupted } from "./interrupt.ts";
import { crashSweep } from "./crash_sweep.ts";

/**
 * Open a registry, run `work` with an AbortSignal that fires on SIGINT/SIGTERM/SIGHUP, and always
 * close the registry (confirming cleanup) before returning. A terminal on stderr shows a
 * progress line when this takes more than a second (see progress.ts). After a signal it
 * throws {@link Interrupted} (exit 130/143/129) once cleanup is done.
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
    // One call: a warm sandbox spawned after it would only be ended by close().
    const reg = await Registry.openSelection(ws, spec, { warmSandboxes: false, ...opts });
    // What a killed toolhost left running is swept alongside the call (crash_sweep.ts).
    const sweep = crashSweep(reg.stateDir, (l) => void process.stderr.write(`toolhost: ${l}\n`));
    sweep.start();
    progress.update("running the tool");
    const ctl = new AbortController();
    let received: string | undefined;
    const onSignal = (signal: string) => {
      received ??= signal;
      ctl.abort();
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    process.on("SIGHUP", onSignal); // a closed terminal: clean up like SIGINT/SIGTERM
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await work(reg, ctl.signal) };
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      progress.update("stopping sessions and cleaning up");
      await reg.close();
      await sweep.settled();
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      process.off("SIGHUP", onSignal);
    }
    // Only after cleanup: the command then exits 128 + the signal's number.
    if (received !== undefined) throw new Interrupted(received);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  });
}
