/**
 * The extensions one eval admits, as a tool source: servers start lazily on the first
 * listing or call, their tools are published as `<tool>_<NAME>`, calls are admitted
 * against the server's own input schema (the same 64 KiB / JSON Schema admission as
 * declared tools), results are normalized and odek envelopes validated against the
 * extension's artifact roots. `close()` stops every started server and confirms that its
 * process group is gone.
 *
 * With a lock, an extension whose declaration, program or execution paths differ from
 * `toolhost.lock` is not started — the tools the lock records for it are listed neutrally
 * and refused with `LOCK_MISMATCH` — and tools it lists that are new or re-described are
 * listed neutrally and refused too — at every listing, so a change announced with
 * `notifications/tools/list_changed` or made across a restart is caught. Text beyond
 * 64 KiB becomes an artifact (`overflow = "artifact"`, the default) when the host has an
 * artifact directory. Servers that die are restarted lazily (see `ExtensionServer`).
 *
 * @module
 */

import { processEnv } from "../process/env.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { CleanupFailed } from "../errors/errors.ts";
import type { Drift } from "../lock/compare.ts";
import { lockRefusalText } from "../lock/registry_lock.ts";
import type { ToolListing } from "../results/tool_listing.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import { admitOrRefuse } from "../schema/admit_args.ts";
import { extensionSpill } from "../spill/extension_spill.ts";
import { evalExtensions, type ExtensionDecl } from "../workspace/parse_extensions.ts";
import type { Workspace } from "../workspace/types.ts";
import { fromMcpResult } from "./inbound_result.ts";
import { envelopeMapper } from "./envelope.ts";
import { workspaceRoots } from "../runtime/artifact_refs.ts";
import {
  ExtensionCallError,
  type ExtensionReadiness,
  ExtensionServer,
} from "./extension_server.ts";
import { reportCallEvent } from "../events/call_events.ts";
import {
  MCP_TOOL_NAME,
  publishedDiffers,
  type PublishedTool,
  publishTool,
} from "./publish_tool.ts";

import { type ExtensionHostOptions, sandboxContext } from "./host_options.ts";
import { startPinCheck } from "./start_pins.ts";
import { startRefusal } from "./start_refusal.ts";

export { MCP_TOOL_NAME };
export type { ExtensionHostOptions };

/**
 * The extension tools of one eval.
 *
 * @example
 * ```ts
 * import { ExtensionHost } from "./host.ts";
 * // const host = ExtensionHost.forEval(ws, "app/review");
 * // const tools = await host.list();
 * // await host.close();
 * ```
 */
export class ExtensionHost {
  /** One server per admitted extension, in declaration order. */
  readonly servers: ExtensionServer[];
  readonly #opts: ExtensionHostOptions;
  /** Workspace-relative artifact roots by extension (made absolute and checked per call). */
  readonly #roots: Map<string, string[]>;
  readonly #root: string;
  #listing?: Promise<Map<string, PublishedTool>>;
  #drift: Drift[] = [];
  readonly #changed = new Set<() => void>();
  /** Servers whose tools are published from the lock, not started yet. */
  readonly #lazy = new Set<ExtensionServer>();
  /** Servers that must be listed live from now on (a call or a readiness check). */
  readonly #live = new Set<ExtensionServer>();
  readonly #activating = new Map<ExtensionServer, Promise<void>>();
  /** What the latest listing published (or {@link ExtensionHost.prelist} found). */
  #published?: ToolListing[];

  /** Create a host for `decls`; nothing runs until the first list or call. */
  constructor(ws: Workspace, decls: ExtensionDecl[], opts: ExtensionHostOptions = {}) {
    this.#opts = opts;
    const env = opts.env ?? processEnv();
    this.servers = decls.map((d) => {
      const s = new ExtensionServer(d, {
        root: ws.root,
        env,
        graceMs: opts.graceMs,
        restart: opts.restart,
        // Every start and self-healing restart re-checks the declaration, program and
        // execution paths against the lock (without one, the paths against their pins at
        // the first start): a binary or module swapped while serving is never started.
        beforeStart: opts.lock ? () => startRefusal(opts.lock!, d) : startPinCheck(ws.root, d),
        sandbox: sandboxContext(ws, opts),
        protect: () => opts.artifacts?.store.protector,
      });
      s.onToolsChanged = () => {
        this.#listing = undefined;
        for (const listener of this.#changed) listener();
      };
      return s;
    });
    this.#root = ws.root;
    this.#roots = new Map(decls.map((d) => [d.name, d.artifactRoots]));
  }

  /** The host for the extensions `evalId` admits (possibly none). */
  static forEval(ws: Workspace, evalId: string, opts: ExtensionHostOptions = {}): ExtensionHost {
    return new ExtensionHost(ws, evalExtensions(ws, evalId), { evalId, ...opts });
  }

  /** Call `listener` whenever an extension's tools may have changed (its notice, a restart). */
  onToolsChanged(listener: () => void): void {
    this.#changed.add(listener);
  }

  /** Published tools of every admitted extension; a server that fails contributes none. */
  async list(): Promise<ToolListing[]> {
    return [...(await this.#tools()).values()].map((t) => t.listing);
  }

  /**
   * The tools as last published, listing and starting nothing: the latest listing's,
   * else what {@link ExtensionHost.prelist} found, else none.
   */
  published(): ToolListing[] {
    return [...(this.#published ?? [])];
  }

  /**
   * Publish what needs no server started — with a lock, the locked listings of the
   * extensions that may start (lazy) and the locked names of those held back — for
   * {@link ExtensionHost.published}. Without a lock it finds nothing. Starts nothing and
   * compares declarations only: a program that differs from the lock is found when its
   * server is to start (the call is refused) or by the next live listing.
   */
  async prelist(): Promise<void> {
    if (this.#published !== undefined || this.#opts.lock === undefined) return;
    const found = [...(await this.#collect(true)).values()].map((t) => t.listing);
    this.#published ??= found;
  }

  /** Whether `name` is named like a tool of one of these extensions (`<tool>_<NAME>`). */
  serves(name: string): boolean {
    return this.servers.some((s) => name.endsWith(`_${s.decl.name}`));
  }

  /**
   * Why `name` is not offered: when the server its suffix names could not start or list
   * its tools, that reason (value-free, as in `tools check --execute`); else no such tool.
   */
  #unavailable(name: string): string {
    const server = this.servers
      .filter((s) => name.endsWith(`_${s.decl.name}`))
      .sort((a, b) => b.decl.name.length - a.decl.name.length)[0];
    const down = server?.readiness.error;
    return down === undefined
      ? `No tool \`${name}\` is available from this eval's extensions.`
      : `${down.replace(/\.$/, "")}, so \`${name}\` is not available.`;
  }

  /** Differences from the lock found by the latest listing (starts servers to find out). */
  async lockDrift(): Promise<Drift[]> {
    await this.#activate(this.servers);
    return [...this.#drift];
  }

  /** Whether `s`'s tools are published from the lock and it has not been started. */
  isLazy(s: ExtensionServer): boolean {
    return this.#lazy.has(s);
  }

  /**
   * List `servers` live from now on (starting them) and verify them against the lock;
   * listeners hear of it when that changed what is published.
   */
  #activate(servers: ExtensionServer[]): Promise<void> {
    const todo = servers.filter((s) => !this.#live.has(s));
    if (todo.length === 0) return this.#tools().then(() => {});
    const run = (async () => {
      const before = await this.#tools();
      for (const s of todo) this.#live.add(s);
      if (!todo.some((s) => this.#lazy.has(s))) return;
      for (const s of todo) this.#lazy.delete(s);
      this.#listing = undefined;
      const after = await this.#tools();
      if (publishedDiffers(before, after)) { for (const listener of this.#changed) listener(); }
    })();
    for (const s of todo) this.#activating.set(s, run);
    return run.finally(() => {
      for (const s of todo) if (this.#activating.get(s) === run) this.#activating.delete(s);
    });
  }

  #tools(): Promise<Map<string, PublishedTool>> {
    if (this.#listing === undefined) {
      const listing = this.#collect();
      this.#listing = listing;
      // A failed listing is not kept: the next request lists again.
      listing.catch(() => {
        if (this.#listing === listing) this.#listing = undefined;
      });
    }
    return this.#listing;
  }

  /**
   * The server's tools; undefined when it is unavailable; `held` (its differences) when
   * the lock forbids starting it.
   */
  async #serverTools(
    s: ExtensionServer,
    drift: Drift[],
    noStart: boolean,
  ): Promise<Tool[] | { held: Drift[] } | undefined> {
    // Listing without starting (prelist) checks the declaration only, hashing no program:
    // a swapped program is found when the server is to start, or at the next live listing.
    const lock = this.#opts.lock;
    const held = (noStart ? lock?.declarationDrift(s.decl) : await lock?.serverDrift(s.decl)) ?? [];
    if (held.length > 0) {
      drift.push(...held);
      this.#opts.log?.(
        `extension \`${s.decl.name}\` was not started: it differs from toolhost.lock`,
      );
      return { held };
    }
    // Issue 18: with a current lock, its listing stands in for the server's until a call
    // needs the server (which then verifies its live list against the lock).
    if (this.#opts.lock && !this.#live.has(s)) {
      const locked = this.#opts.lock.lockedListing(s.decl.name);
      if (locked !== undefined) {
        this.#lazy.add(s);
        return locked as Tool[];
      }
    }
    if (this.#opts.listOnly || noStart) return undefined;
    try {
      return await s.listTools();
    } catch (e) {
      this.#opts.log?.(`extension \`${s.decl.name}\` is unavailable: ${(e as Error).message}`);
      return undefined;
    }
  }

  /** Every server's published tools; `noStart`: only what the lock lists (kept apart). */
  async #collect(noStart = false): Promise<Map<string, PublishedTool>> {
    const drift: Drift[] = [];
    const lists = await Promise.all(
      this.servers.map(async (s) => ({ s, tools: await this.#serverTools(s, drift, noStart) })),
    );
    const out = new Map<string, PublishedTool>();
    for (const { s, tools } of lists) {
      if (tools === undefined) continue;
      if (!Array.isArray(tools)) {
        this.#publishHeld(s, tools.held, out);
        continue;
      }
      try {
        this.#publishAll(s, tools, drift, out);
      } catch (e) {
        // One server's listing must never take the others (or the registry's) down.
        this.#opts.log?.(
          `extension \`${s.decl.name}\`: its tools were skipped: ${(e as Error).name}`,
        );
      }
    }
    if (noStart) return out;
    this.#drift = drift;
    this.#published = [...out.values()].map((t) => t.listing);
    return out;
  }

  #publishAll(
    s: ExtensionServer,
    tools: Tool[],
    drift: Drift[],
    out: Map<string, PublishedTool>,
  ): void {
    const check = this.#opts.lock?.toolCheck(s.decl.name, tools);
    const mine = new Map<string, PublishedTool>();
    for (const t of tools) {
      const p = this.#publish(s, t, check?.blocked.get(t.name));
      if (typeof p === "string") {
        this.#opts.log?.(`extension \`${s.decl.name}\`: tool skipped: ${p}`);
      } else if (
        out.has(p.listing.name) || mine.has(p.listing.name) ||
        this.#opts.reserved?.has(p.listing.name)
      ) {
        this.#opts.log?.(
          `extension \`${s.decl.name}\`: tool skipped: \`${p.listing.name}\` is taken`,
        );
      } else mine.set(p.listing.name, p);
    }
    drift.push(...(check?.drift ?? []));
    for (const [k, v] of mine) out.set(k, v);
  }

  /**
   * A held-back extension's locked tools, listed neutrally so calls get `LOCK_MISMATCH`
   * (not "no such tool"); nothing of the changed server is started or shown.
   */
  #publishHeld(s: ExtensionServer, held: Drift[], out: Map<string, PublishedTool>): void {
    for (const remote of this.#opts.lock?.lockedTools(s.decl.name) ?? []) {
      const p = this.#publish(s, { name: remote, inputSchema: { type: "object" } }, held);
      if (typeof p === "string" || out.has(p.listing.name)) continue;
      if (this.#opts.reserved?.has(p.listing.name)) continue;
      out.set(p.listing.name, p);
    }
  }

  #publish(server: ExtensionServer, t: Tool, blocked?: Drift[]): PublishedTool | string {
    return publishTool(server, t, this.#opts.artifacts?.store.protector, blocked);
  }

  /**
   * Call a published extension tool. Always resolves to a ToolResult (unknown tool,
   * refused arguments, timeouts, invalid output, refused envelopes and `LOCK_MISMATCH`
   * are error results).
   */
  async call(
    name: string,
    args: unknown,
    opts: { signal?: AbortSignal } = {},
  ): Promise<ToolResult> {
    let tool = (await this.#tools()).get(name);
    if (tool && this.#lazy.has(tool.server)) {
      // First call: start the server and verify its live list against the lock first.
      const server = tool.server;
      await (this.#activating.get(server) ?? this.#activate([server]));
      tool = (await this.#tools()).get(name);
      if (!tool) {
        return errorResult(
          server.readiness.error ??
            `The extension \`${server.decl.name}\` no longer offers \`${name}\`; the call was not sent.`,
        );
      }
    }
    if (!tool) return errorResult(this.#unavailable(name));
    if (tool.blocked) {
      reportCallEvent({ kind: "lock_mismatch", what: "extension" });
      return errorResult(lockRefusalText(name, tool.blocked));
    }
    const admission = admitOrRefuse(args, tool.schema);
    if (!admission.ok) return admission.result;
    const admitted = admission.args;
    if (opts.signal?.aborted) return errorResult("The call was cancelled before it started.");
    const decl = tool.server.decl;
    // A trust anchor the confined server created is moved aside (before and after the call).
    const before = tool.server.settleAnchors();
    if (before !== undefined) return errorResult(before);
    let raw: unknown;
    try {
      raw = await tool.server.callTool(tool.remoteName, admitted, opts.signal, tool.fingerprint);
    } catch (e) {
      if (e instanceof ExtensionCallError) return errorResult(e.message);
      throw e;
    }
    const created = tool.server.settleAnchors();
    if (created !== undefined) return errorResult(created);
    const home = this.#opts.artifacts;
    return fromMcpResult(raw, {
      mapText: envelopeMapper(
        decl.name,
        () => workspaceRoots(this.#root, this.#roots.get(decl.name) ?? []),
        home?.store,
      ),
      spillText: home && decl.overflow !== "truncate" ? extensionSpill(home, name) : undefined,
      protect: home?.store.protector,
    });
  }

  /** Readiness of every admitted extension (starts and lists them). */
  async readiness(): Promise<ExtensionReadiness[]> {
    await this.#activate(this.servers);
    return this.servers.map((s) => ({ ...s.readiness }));
  }

  /**
   * Stop every started server; throws {@link CleanupFailed} when a process group could
   * not be confirmed gone. Idempotent.
   */
  async close(): Promise<void> {
    const confirmed = await Promise.all(this.servers.map((s) => s.close()));
    const failed = this.servers.filter((_, i) => !confirmed[i]).map((s) => `\`${s.decl.name}\``);
    if (failed.length > 0) {
      throw new CleanupFailed(
        `the process group of extension ${failed.join(", ")} could not be confirmed gone`,
      );
    }
    const created = this.servers.map((s) => s.settleAnchors()).filter((m) => m !== undefined);
    if (created.length > 0) throw new CleanupFailed(created.join(" "));
  }
}
