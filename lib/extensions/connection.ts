/**
 * One generation of an extension server: its process group (started over stdio, with
 * the extension's resource limits), the SDK `Client` that initialized it, the tools it
 * listed, and confirmed cleanup. A server that dies ends its generation; the
 * {@link ExtensionServer} decides whether a new one is started.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/types"
import { type Tool, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { openGuard } from "../limits/guard.ts";
import { hasLimits, limitMessage } from "../limits/types.ts";
import { toolEnvironment } from "../process/env.ts";
import type { RunGuard } from "../process/run_guard.ts";
import type { ExtensionDecl } from "../workspace/parse_extensions.ts";
import { resolveProgram } from "../workspace/program_path.ts";
import { VERSION } from "../version.ts";
import { nestingWithin } from "../results/json_depth.ts";
import type { ConnectionOptions } from "./connection_options.ts";
import { confineExtension } from "./extension_confine.ts";
import { ExtensionCallError, extensionMessage, ExtensionStartError } from "./extension_errors.ts";
import { ProcessGroupTransport } from "./group_transport.ts";
import { UNCHECKED_OUTPUT } from "./output_schemas.ts";
import { remoteStartError } from "./remote_start_error.ts";
import {
  httpStatusOf,
  remoteHeaders,
  type RemoteKind,
  RemoteTransport,
} from "./remote_transport.ts";

export type { ConnectionOptions, ExtensionSandboxContext } from "./connection_options.ts";
export {
  ExtensionCallError,
  extensionMessage,
  ExtensionStartError,
  notDelivered,
} from "./extension_errors.ts";

/**
 * Most pages of `tools/list` followed.
 *
 * @example
 * ```ts
 * import { MAX_LIST_PAGES } from "./connection.ts";
 * MAX_LIST_PAGES; // 16
 * ```
 */
export const MAX_LIST_PAGES = 16;
/**
 * Most tools taken from one extension.
 *
 * @example
 * ```ts
 * import { MAX_EXTENSION_TOOLS } from "./connection.ts";
 * MAX_EXTENSION_TOOLS; // 1024
 * ```
 */
export const MAX_EXTENSION_TOOLS = 1024;

/**
 * Deepest nesting of arrays/objects a listed tool definition may have.
 *
 * @example
 * ```ts
 * import { MAX_TOOL_NESTING } from "./connection.ts";
 * MAX_TOOL_NESTING; // 128
 * ```
 */
export const MAX_TOOL_NESTING = 128;

/**
 * One started, initialized extension server.
 *
 * @example
 * ```ts
 * import { ExtensionConnection } from "./connection.ts";
 * // const c = await ExtensionConnection.open({ decl, root: ws.root, env: {} });
 * // const tools = await c.listTools(); await c.close();
 * ```
 */
export class ExtensionConnection {
  /** The transport (process group, or a remote connection). */
  readonly transport: ProcessGroupTransport | RemoteTransport;
  /** The initialized client. */
  readonly client: Client;
  /** The decl. */
  readonly decl: ExtensionDecl;
  /**
   * Moves aside a trust anchor the confined server created since it started (see
   * lib/sandbox/anchor_watch.ts): its error text, or undefined.
   */
  settleAnchors: () => string | undefined = () => undefined;
  #ended = false;

  private constructor(
    decl: ExtensionDecl,
    transport: ProcessGroupTransport | RemoteTransport,
    client: Client,
  ) {
    this.decl = decl;
    this.transport = transport;
    this.client = client;
  }

  /** True once the server is gone (or going): no request may be sent any more. */
  get dead(): boolean {
    return this.#ended || !this.transport.alive;
  }

  /** The limit that stopped this server, if one did. */
  get limitMessage(): string | undefined {
    const hit = this.transport.limitHit;
    return hit ? limitMessage(hit, this.decl.limits) : undefined;
  }

  /**
   * Spawn (or, for a remote extension, connect) and initialize; throws
   * {@link ExtensionStartError} (value-free) on failure.
   */
  static open(o: ConnectionOptions): Promise<ExtensionConnection> {
    return o.decl.remote ? ExtensionConnection.#openRemote(o) : ExtensionConnection.#spawn(o);
  }

  static #client(
    decl: ExtensionDecl,
    transport: ProcessGroupTransport | RemoteTransport,
    o: ConnectionOptions,
  ): ExtensionConnection {
    // The server's outputSchemas are not compiled or run (output_schemas.ts).
    const client = new Client({ name: "toolhost", version: VERSION }, {
      capabilities: {},
      jsonSchemaValidator: UNCHECKED_OUTPUT,
    });
    const conn = new ExtensionConnection(decl, transport, client);
    client.onclose = () => {
      conn.#ended = true;
    };
    client.onerror = () => {};
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => o.onToolsChanged?.());
    return conn;
  }

  /** Connect over Streamable HTTP; fall back to HTTP+SSE when the server answers as one. */
  static async #openRemote(o: ConnectionOptions): Promise<ExtensionConnection> {
    const { decl } = o;
    const remote = decl.remote!;
    const h = remoteHeaders(decl, o.env);
    if (!h.ok) {
      const vars = h.missing.map((v) => `\`${v}\``).join(", ");
      throw new ExtensionStartError(
        `The extension \`${decl.name}\` cannot connect: set the environment variable ${vars} (named in ${decl.keyPath}).`,
        false,
      );
    }
    let first: unknown;
    for (const kind of ["streamable-http", "sse"] as RemoteKind[]) {
      const transport = new RemoteTransport(kind, remote.url, h.headers, o.protect);
      const conn = ExtensionConnection.#client(decl, transport, o);
      try {
        await conn.client.connect(transport, { timeout: decl.connectTimeoutMs ?? decl.timeoutMs });
        return conn;
      } catch (e) {
        await transport.close().catch(() => {});
        first ??= e;
        // A legacy HTTP+SSE server refuses the Streamable HTTP POST (400/404/405).
        const status = httpStatusOf(e);
        if (kind === "sse" || !(status === 400 || status === 404 || status === 405)) {
          throw remoteStartError(kind === "sse" && httpStatusOf(e) !== undefined ? e : first, decl);
        }
      }
    }
    throw remoteStartError(first, decl);
  }

  static async #spawn(o: ConnectionOptions): Promise<ExtensionConnection> {
    const { decl } = o;
    const env = toolEnvironment(o.env, decl.env);
    const prog = resolveProgram(decl.command, o.root, o.root, env);
    if (!prog.ok) {
      throw new ExtensionStartError(
        `The extension \`${decl.name}\` cannot start: ${prog.reason}.`,
        false,
      );
    }
    let guard: RunGuard | undefined;
    if (hasLimits(decl.limits)) {
      const g = await openGuard(decl.limits);
      if (!g.ok) {
        throw new ExtensionStartError(
          `The extension \`${decl.name}\` cannot start: its resource limits cannot be enforced on this host (${g.reason}).`,
          false,
        );
      }
      guard = g.guard;
    }
    const confine = confineExtension(o, prog.path);
    const transport = new ProcessGroupTransport({
      command: prog.path,
      args: decl.args,
      cwd: o.root,
      env,
      graceMs: o.graceMs,
      guard,
      confine,
      protect: o.protect,
    });
    const conn = ExtensionConnection.#client(decl, transport, o);
    if (confine?.settle) conn.settleAnchors = () => confine.settle?.();
    try {
      await conn.client.connect(transport, { timeout: decl.connectTimeoutMs ?? decl.timeoutMs });
    } catch (e) {
      await transport.close();
      const why = conn.limitMessage ?? extensionMessage(e, decl);
      throw new ExtensionStartError(why, transport.record !== undefined);
    }
    return conn;
  }

  /**
   * List the server's tools (following at most {@link MAX_LIST_PAGES} pages); a tool whose
   * definition nests deeper than {@link MAX_TOOL_NESTING} levels is left out.
   */
  async listTools(): Promise<Tool[]> {
    const out: Tool[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const res = await this.client.listTools(cursor ? { cursor } : undefined, {
          timeout: this.decl.timeoutMs,
        });
        out.push(...res.tools);
        cursor = res.nextCursor;
        if (!cursor || out.length >= MAX_EXTENSION_TOOLS) break;
      }
    } catch (e) {
      throw new ExtensionCallError(this.limitMessage ?? extensionMessage(e, this.decl));
    }
    // A definition nested absurdly deep would overflow the recursive walks that hash and
    // compile it; such a tool is left out like any other unusable one.
    return out.slice(0, MAX_EXTENSION_TOOLS).filter((t) => nestingWithin(t, MAX_TOOL_NESTING));
  }

  /** Call a tool; errors propagate unmapped (the server classifies them). */
  callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    return this.client.callTool({ name, arguments: args }, undefined, {
      signal,
      timeout: this.decl.timeoutMs,
    });
  }

  /** Stop the server; resolves to whether its process group is confirmed gone. */
  async close(): Promise<boolean> {
    try {
      await this.client.close();
    } catch { /* the transport is closed below either way */ }
    await this.transport.close();
    return this.transport.cleanup?.confirmed ?? this.transport.record === undefined;
  }
}
