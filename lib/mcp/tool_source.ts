/**
 * What an MCP connection serves: the tools of one eval — its registry, plus the
 * extensions the eval admits — behind one list/call/close surface.
 *
 * @module
 */

import type { ArtifactStore } from "../artifacts/store.ts";
import { InvocationError } from "../errors/errors.ts";
import type { CallOptions, Registry, ToolListing } from "../registry/registry.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
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
 * The tools of an open registry, its extensions' included, as an MCP server publishes
 * them. Every call goes through `registry.call` exactly as `tools call` does (extension
 * tools through the registry's extension host, with the same plugin hooks). Listing is
 * live: extension servers a current lock cannot stand in for are started to list them
 * (with a lock, lazy ones stay unstarted until their first call). Closing closes the
 * registry, which stops the extension servers too, and confirms cleanup.
 *
 * @example
 * ```ts
 * import { evalToolSource } from "./tool_source.ts";
 * // const source = evalToolSource(await Registry.open(ws, "app/review"));
 * // await source.call("read_app", { path: "README.md" });
 * // await source.close();
 * ```
 */
export function evalToolSource(reg: Registry): ToolSource {
  const host = reg.extensions;
  const own = () => reg.list().filter((t) => t.extension === undefined);
  const list = async () => [...own(), ...(await host?.list() ?? [])];
  return {
    artifacts: reg.artifacts,
    toolSessionsRunning: () =>
      reg.sessions.sessions().filter((s) => s.phase === "starting" || s.phase === "ready").length,
    list,
    async call(name, args, opts = {}) {
      try {
        return await reg.call(name, args, opts);
      } catch (e) {
        if (!(e instanceof InvocationError)) throw e;
        // Every published name, extensions' included, for the hint.
        const names = (await list()).map((t) => t.name);
        return errorResult(`${unknownToolMessage(name, names, "this eval")}.`);
      }
    },
    close: () => reg.close(),
    // Only extension servers can change what is published.
    ...(host !== undefined && host.servers.length > 0
      ? { onToolsChanged: (listener: () => void) => host.onToolsChanged(listener) }
      : {}),
  };
}
