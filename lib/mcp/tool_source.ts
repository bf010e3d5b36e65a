/**
 * What an MCP connection serves: the tools of one eval — its registry, plus the
 * extensions the eval admits — behind one list/call/close surface.
 *
 * @module
 */

import type { ArtifactStore } from "../artifacts/store.ts";
import { guardCall } from "../plugins/plugin_tools.ts";
import type { CallOptions, Registry, ToolListing } from "../registry/registry.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import { ExtensionHost, type ExtensionHostOptions } from "./extensions/host.ts";
import { registryHostOptions } from "./extensions/trust_options.ts";
import { unknownToolMessage } from "../registry/selection.ts";

/** A set of tools an MCP server publishes. */
export interface ToolSource {
  /** Published tools (may start extension servers on first use). */
  list(): Promise<ToolListing[]>;
  /** Call a tool; always resolves to a ToolResult (unknown tools are error results). */
  call(name: string, args: unknown, opts?: CallOptions): Promise<ToolResult>;
  /** Stop everything the source owns and confirm cleanup. Idempotent. */
  close(): Promise<void>;
  /** Register a listener for changes of the published tools. Absent: they never change. */
  onToolsChanged?(listener: () => void): void;
  /** The artifacts the source's calls received, served as MCP resources. Absent: none. */
  readonly artifacts?: ArtifactStore;
  /** Tool sessions started and not yet stopped (for metrics). Absent: none. */
  toolSessionsRunning?(): number;
}

/**
 * The tools of an open registry plus the extensions its eval admits. Registry tools are
 * called through `registry.call` exactly as `tools call` does; extension tools through
 * the {@link ExtensionHost}. Closing stops extension servers and then the registry
 * (its sessions and state); both are attempted even when one fails, and the first
 * failure is rethrown.
 *
 * @example
 * ```ts
 * import { evalToolSource } from "./tool_source.ts";
 * // const source = evalToolSource(await Registry.open(ws, "app/review"));
 * // await source.call("read_app", { path: "README.md" });
 * // await source.close();
 * ```
 */
export function evalToolSource(reg: Registry, hostOpts: ExtensionHostOptions = {}): ToolSource {
  const own = new Set(reg.list().map((t) => t.name));
  const evalId = reg.selection.evalId;
  const host = evalId === undefined
    ? new ExtensionHost(reg.workspace, [], hostOpts)
    : ExtensionHost.forEval(reg.workspace, evalId, {
      env: reg.env,
      ...registryHostOptions(reg), // lock and artifact spill
      ...hostOpts,
      reserved: own,
    });
  let closing: Promise<void> | undefined;
  return {
    artifacts: reg.artifacts,
    toolSessionsRunning: () =>
      reg.sessions.sessions().filter((s) => s.phase === "starting" || s.phase === "ready").length,
    async list() {
      return [...reg.list(), ...(await host.list())];
    },
    async call(name, args, opts = {}) {
      if (own.has(name)) return await reg.call(name, args, opts);
      // A published extension tool is `<tool>_<extension>`: the suffix says which server
      // without starting it, so a call the plugins deny starts nothing (issue 6).
      if (host.servers.some((s) => name.endsWith(`_${s.decl.name}`))) {
        // Extension calls pass the same plugin hooks (policy, audit, redaction) as every call.
        return await guardCall(reg.plugins, name, args, opts, () => host.call(name, args, opts));
      }
      // Every published name, extensions' included, for the hint.
      const names = [...own, ...(await host.list()).map((t) => t.name)];
      return errorResult(`${unknownToolMessage(name, names, "this eval")}.`);
    },
    close() {
      closing ??= closeBoth(host, reg);
      return closing;
    },
    // Only extension servers can change what is published.
    ...(host.servers.length > 0
      ? { onToolsChanged: (listener: () => void) => host.onToolsChanged(listener) }
      : {}),
  };
}

async function closeBoth(host: ExtensionHost, reg: Registry): Promise<void> {
  const results = await Promise.allSettled([host.close(), reg.close()]);
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}
