/**
 * One extension: an MCP server started lazily over stdio in its own process group,
 * initialized with the SDK's `Client`, listed, called many times, and stopped with
 * confirmed process-group cleanup.
 *
 * Self-healing: a server that dies after it started is restarted lazily by
 * the next call that needs it — with exponential backoff and at most
 * `restart.maxRestarts` restarts per minute (beyond that, calls get an error saying when
 * a restart is allowed again). A call is retried once, on a fresh server, only when the
 * server was already gone before the request was written; a request that may have
 * reached the server is never sent twice. A server whose very first start fails is not
 * restarted: that error is sticky, as before. After a restart (and on
 * `notifications/tools/list_changed`) the tool list is fetched again, and a call whose
 * tool changed meanwhile is not sent.
 *
 * @module
 */

import { reportCallEvent } from "../events/call_events.ts";
import type { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ProcessRecord } from "../process/proc_identity.ts";
import type { ExtensionDecl } from "../workspace/parse_extensions.ts";
import type { ExtensionSandboxContext } from "./connection_options.ts";
import { toolHashes } from "../lock/canonical.ts";
import { ExtensionConnection } from "./connection.ts";
import {
  ExtensionCallError,
  extensionMessage,
  ExtensionStartError,
  notDelivered,
} from "./extension_errors.ts";
import { type RestartOptions, RestartPolicy } from "./restart_policy.ts";
import { toolFilter } from "./tool_filter.ts";
import type { Protector } from "../redact/types.ts";

export { MAX_EXTENSION_TOOLS, MAX_LIST_PAGES } from "./connection.ts";
export { ExtensionCallError } from "./extension_errors.ts";

/** Readiness of one extension, as `tools check --execute` reports it. */
export interface ExtensionReadiness {
  /** Extension name. */
  name: string;
  /** The process was spawned. */
  started: boolean;
  /** The MCP handshake completed. */
  initialized: boolean;
  /** `tools/list` answered. */
  toolsListed: boolean;
  /** How many tools it lists. */
  toolCount: number;
  /** Restarts after the server died (present once it was restarted). */
  restarts?: number;
  /** Value-free reason when not ready. */
  error?: string;
}

/** Options of {@link ExtensionServer}. */
export interface ExtensionServerOptions {
  /** Workspace root: the server's working directory and the base of relative commands. */
  root: string;
  /** The author's environment (the extension's `env` is added to it). */
  env: Record<string, string>;
  /** SIGTERM → SIGKILL grace on stop, ms. Default 2000. */
  graceMs?: number;
  /** Restart backoff and cap (default: 5 restarts per minute, backoff from 250 ms). */
  restart?: RestartOptions;
  /**
   * Checked before every start and restart (e.g. that the program is still the locked
   * one): a message refuses the start with it. Default: none.
   */
  beforeStart?: () => Promise<string | undefined>;
  /** The eval the server serves, for its confinement (lib/sandbox). Default: no scope. */
  sandbox?: ExtensionSandboxContext;
  /** The protected values now (json_rpc_lines.ts holds a message with one outside a string). */
  protect?: () => Protector | undefined;
}

/**
 * The fingerprint of a listed tool (description and canonical schema hashes), so a call
 * can check the server still offers the very tool the host admitted it against.
 *
 * @example
 * ```ts
 * import { toolFingerprint } from "./extension_server.ts";
 * toolFingerprint({ description: "Echo.", inputSchema: { type: "object" } }).length; // 129
 * ```
 */
export function toolFingerprint(t: Pick<Tool, "description" | "inputSchema">): string {
  // Remembered per listed tool object (listings are never mutated): every call of an
  // extension tool checks its fingerprint, which would otherwise hash it twice again.
  const known = fingerprints.get(t);
  if (known !== undefined) return known;
  const h = toolHashes(t.description ?? "", t.inputSchema);
  const fingerprint = `${h.description}:${h.inputSchema}`;
  fingerprints.set(t, fingerprint);
  return fingerprint;
}

const fingerprints = new WeakMap<object, string>();

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}

/**
 * A lazily started, self-healing extension server.
 *
 * @example
 * ```ts
 * import { ExtensionServer } from "./extension_server.ts";
 * // const s = new ExtensionServer(decl, { root: ws.root, env: {} });
 * // const tools = await s.listTools();
 * // await s.close();
 * ```
 */
export class ExtensionServer {
  /** The declaration. */
  readonly decl: ExtensionDecl;
  /** What has happened so far. */
  readonly readiness: ExtensionReadiness;
  /** Called when the tool list may have changed (list_changed, or a restart). */
  onToolsChanged?: () => void;
  readonly #opts: ExtensionServerOptions;
  readonly #policy: RestartPolicy;
  readonly #stop = new AbortController();
  #conn?: ExtensionConnection;
  #created: string[] = []; // anchors earlier generations created (moved aside), not yet told
  #opening?: Promise<ExtensionConnection>;
  #firstFailure?: ExtensionCallError;
  #tools?: Promise<Tool[]>;
  /** A remote server that could not be reached: the next attempt waits its backoff. */
  #unreachable = false;
  readonly #keep: (name: string) => boolean;

  /** Create; nothing runs until the first list or call. */
  constructor(decl: ExtensionDecl, opts: ExtensionServerOptions) {
    this.decl = decl;
    this.#opts = opts;
    this.#policy = new RestartPolicy(opts.restart);
    this.#keep = toolFilter(decl);
    this.readiness = {
      name: decl.name,
      started: false,
      initialized: false,
      toolsListed: false,
      toolCount: 0,
    };
  }

  /** The current server's process-group identity once spawned (for cleanup checks). */
  get record(): ProcessRecord | undefined {
    return this.#conn?.transport.record;
  }

  /** Whether a live server is running now. */
  get running(): boolean {
    return this.#conn !== undefined && !this.#conn.dead;
  }

  /** Start (or restart) and initialize; the client of the live server. */
  async start(): Promise<Client> {
    return (await this.#connection()).client;
  }

  #connection(): Promise<ExtensionConnection> {
    if (this.#stop.signal.aborted) {
      return Promise.reject(
        new ExtensionCallError(`The extension \`${this.decl.name}\` is stopped.`),
      );
    }
    if (this.#conn && !this.#conn.dead) return Promise.resolve(this.#conn);
    if (this.#firstFailure) return Promise.reject(this.#firstFailure);
    this.#opening ??= this.#open().finally(() => (this.#opening = undefined));
    return this.#opening;
  }

  async #restartGate(old: ExtensionConnection | undefined): Promise<void> {
    const d = this.#policy.next();
    if (!d.ok) {
      throw new ExtensionCallError(
        `The extension \`${this.decl.name}\` stopped and was restarted ${d.max} times within a minute; ` +
          `it is not restarted again for ${
            Math.ceil(d.retryAfterMs / 1000)
          } s. Fix the server, or try again later.`,
      );
    }
    if (d.waitMs > 0) await sleep(d.waitMs, this.#stop.signal);
    await old?.close(); // the dead generation's group is confirmed gone first
    const created = old?.settleAnchors(); // before the next generation binds it read-only
    if (created !== undefined) this.#created.push(created);
    if (this.#stop.signal.aborted) {
      throw new ExtensionCallError(`The extension \`${this.decl.name}\` is stopped.`);
    }
    this.#policy.record();
    this.readiness.restarts = (this.readiness.restarts ?? 0) + 1;
    reportCallEvent({ kind: "extension_restart", extension: this.decl.name });
  }

  async #open(): Promise<ExtensionConnection> {
    const old = this.#conn;
    if (old || this.#unreachable) await this.#restartGate(old);
    const holder: { conn?: ExtensionConnection } = {};
    const refused = await this.#opts.beforeStart?.();
    if (refused !== undefined) throw new ExtensionCallError(refused);
    try {
      holder.conn = await ExtensionConnection.open({
        ...this.#opts,
        decl: this.decl,
        onToolsChanged: () => {
          if (holder.conn === this.#conn) this.#toolsChanged();
        },
      });
    } catch (e) {
      const err = e instanceof ExtensionCallError
        ? e
        : new ExtensionCallError(extensionMessage(e, this.decl));
      this.#unreachable = e instanceof ExtensionStartError && e.retryable;
      if (!old && !this.#unreachable) {
        this.#firstFailure = err;
        this.readiness.started = e instanceof ExtensionStartError && e.spawned;
        this.readiness.error = err.message;
      }
      throw err;
    }
    this.#conn = holder.conn;
    this.#unreachable = false;
    delete this.readiness.error;
    this.readiness.started = true;
    this.readiness.initialized = true;
    if (old) this.#toolsChanged();
    return holder.conn;
  }

  #toolsChanged(): void {
    this.#tools = undefined;
    this.onToolsChanged?.();
  }

  /**
   * The server's tools that its `enabled_tools` / `disabled_tools` let through (listed
   * once per server generation and tool-list change). A filtered-out tool is neither
   * listed nor callable.
   */
  listTools(): Promise<Tool[]> {
    this.#tools ??= this.#listTools();
    return this.#tools;
  }

  async #listTools(): Promise<Tool[]> {
    const conn = await this.#connection();
    try {
      const tools = (await conn.listTools()).filter((t) => this.#keep(t.name));
      this.readiness.toolsListed = true;
      this.readiness.toolCount = tools.length;
      return tools;
    } catch (e) {
      this.readiness.error = extensionMessage(e, this.decl);
      throw new ExtensionCallError(this.readiness.error);
    }
  }

  async #checkUnchanged(name: string, expected: string | undefined): Promise<void> {
    if (expected === undefined) return;
    const t = (await this.listTools()).find((x) => x.name === name);
    if (t === undefined || toolFingerprint(t) !== expected) {
      throw new ExtensionCallError(
        `The extension \`${this.decl.name}\` no longer offers the tool \`${name}\` as it was listed (it changed when the server restarted or announced a new tool list); the call was not sent.`,
      );
    }
  }

  /**
   * Call one tool of the server with already-admitted arguments; resolves to the raw MCP
   * result. `expected` (see {@link toolFingerprint}) refuses the call if the server now
   * lists the tool differently. Throws {@link ExtensionCallError} (value-free) on
   * timeout, cancellation, a protocol error, a server that ended mid-call, or a server
   * that may not be restarted now.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    expected?: string,
  ): Promise<unknown> {
    const ext = `\`${this.decl.name}\``;
    if (!this.#keep(name)) {
      throw new ExtensionCallError(`The extension ${ext} does not offer the tool \`${name}\`.`);
    }
    for (let attempt = 0;; attempt++) {
      const conn = await this.#connection();
      await this.#checkUnchanged(name, expected);
      if (signal?.aborted) throw new ExtensionCallError("The call was cancelled.");
      try {
        return await conn.callTool(name, args, signal);
      } catch (e) {
        if (signal?.aborted) throw new ExtensionCallError("The call was cancelled.");
        if (notDelivered(e)) {
          if (attempt === 0) continue; // never reached the server: one retry on a fresh one
          throw new ExtensionCallError(`The extension ${ext} ended before the call could be sent.`);
        }
        if (conn.limitMessage) {
          throw new ExtensionCallError(`The extension ${ext} was stopped: ${conn.limitMessage}.`);
        }
        if (conn.dead) {
          throw new ExtensionCallError(
            `The extension ${ext} ended while the call was running; it was not retried because it may have run. The next call restarts it.`,
          );
        }
        throw new ExtensionCallError(extensionMessage(e, this.decl));
      }
    }
  }

  /**
   * Move aside a trust anchor the confined server created (also a dead generation's):
   * the error text naming it, or undefined. See lib/sandbox/anchor_watch.ts.
   */
  settleAnchors(): string | undefined {
    const now = this.#conn?.settleAnchors();
    const all = [...this.#created.splice(0), ...(now === undefined ? [] : [now])];
    return all.length === 0 ? undefined : all.join(" ");
  }

  /**
   * Stop the server and confirm that its whole process group is gone. Resolves to false
   * when cleanup could not be confirmed. Idempotent; a server never started is a no-op.
   */
  async close(): Promise<boolean> {
    this.#stop.abort();
    await this.#opening?.catch(() => {});
    return this.#conn ? await this.#conn.close() : true;
  }
}
