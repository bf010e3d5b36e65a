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
import {
  ErrorCode,
  McpError,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { ToolhostError } from "../errors/errors.ts";
import { openGuard } from "../limits/guard.ts";
import { hasLimits, limitMessage } from "../limits/types.ts";
import { toolEnvironment } from "../process/env.ts";
import type { RunGuard } from "../process/run_guard.ts";
import type { Confine } from "../process/sandbox_init.ts";
import { openConfine, unconfinableMessage } from "../sandbox/confine.ts";
import { confinementOf } from "../sandbox/confinement_of.ts";
import type { Workspace } from "../workspace/types.ts";
import { join } from "node:path";
import type { ExtensionDecl } from "../workspace/parse_extensions.ts";
import { resolveProgram } from "../workspace/program_path.ts";
import { VERSION } from "../version.ts";
import { nestingWithin } from "../results/json_depth.ts";
import { NotDeliveredError, ProcessGroupTransport } from "./group_transport.ts";
import { UNCHECKED_OUTPUT } from "./output_schemas.ts";
import type { Protector } from "../redact/types.ts";
import {
  httpStatusOf,
  remoteHeaders,
  type RemoteKind,
  RemoteTransport,
} from "./remote_transport.ts";

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
 * A call failed in a way the model should see as an error result.
 *
 * @example
 * ```ts
 * import { ExtensionCallError } from "./connection.ts";
 * new ExtensionCallError("The extension `fx` ended.").code; // "TOOL_ERROR"
 * ```
 */
export class ExtensionCallError extends ToolhostError {
  /** Create a value-free extension error. */
  constructor(message: string) {
    super("TOOL_ERROR", message);
  }
}

/**
 * Starting a server failed; `spawned` says whether its process had started.
 *
 * @example
 * ```ts
 * import { ExtensionStartError } from "./connection.ts";
 * new ExtensionStartError("The extension `fx` cannot start.", false).spawned; // false
 * ```
 */
export class ExtensionStartError extends ExtensionCallError {
  /** The process was spawned (then stopped again). */
  readonly spawned: boolean;
  /**
   * A later attempt may succeed (a remote server that could not be reached), so the
   * failure is not kept for good. Default false.
   */
  readonly retryable: boolean;
  /** Create the error. */
  constructor(message: string, spawned: boolean, retryable = false) {
    super(message);
    this.spawned = spawned;
    this.retryable = retryable;
  }
}

/** What one generation needs. */
export interface ConnectionOptions {
  /** The declaration. */
  decl: ExtensionDecl;
  /** Workspace root: working directory and base of relative commands. */
  root: string;
  /** The author's environment. */
  env: Record<string, string>;
  /** SIGTERM → SIGKILL grace on stop, ms. Default 2000. */
  graceMs?: number;
  /** Called when the server announces `notifications/tools/list_changed`. */
  onToolsChanged?: () => void;
  /** The eval the server serves, for its confinement (lib/sandbox). Default: no scope. */
  sandbox?: ExtensionSandboxContext;
  /** The protected values now (json_rpc_lines.ts holds a message with one outside a string). */
  protect?: () => Protector | undefined;
}

/** What a confined extension server's sandbox is built from. */
export interface ExtensionSandboxContext {
  /** The workspace. */
  ws: Workspace;
  /** The eval's scope (Artifact ids). */
  scope: readonly string[];
  /** The eval's Artifact (writable under `sandbox = "write"`). */
  owner?: string;
  /** The state directory (hidden inside). */
  stateDir: string;
}

/**
 * The value-free message of a failure talking to extension `decl`.
 *
 * @example
 * ```ts
 * import { extensionMessage } from "./connection.ts";
 * // extensionMessage(error, decl) → "The extension `fx` ended."
 * ```
 */
export function extensionMessage(e: unknown, decl: ExtensionDecl): string {
  const name = `\`${decl.name}\``;
  if (e instanceof ExtensionCallError) return e.message;
  if (e instanceof McpError) {
    if (e.code === ErrorCode.RequestTimeout) {
      return `The extension ${name} did not answer within ${decl.timeoutMs} ms.`;
    }
    if (e.code === ErrorCode.ConnectionClosed) return `The extension ${name} ended.`;
    if (e.code === ErrorCode.InvalidParams || e.code === ErrorCode.MethodNotFound) {
      return `The extension ${name} refused the request (MCP error ${e.code}).`;
    }
    return `The extension ${name} failed (MCP error ${e.code}).`;
  }
  if (e instanceof ToolhostError) return `The extension ${name} cannot start: ${e.message}`;
  const status = decl.remote ? httpStatusOf(e) : undefined;
  if (status !== undefined) return `The extension ${name} answered HTTP ${status}.`;
  return `The extension ${name} failed.`;
}

/**
 * Why a remote extension could not be connected: value-free (never the server's text,
 * a header or a token), naming what to set for 401/403.
 */
function remoteStartError(e: unknown, decl: ExtensionDecl): ExtensionStartError {
  const name = `\`${decl.name}\``;
  const status = httpStatusOf(e);
  if (status === 401 || status === 403) {
    const r = decl.remote!;
    const vars = [r.bearerTokenEnvVar, ...Object.values(r.envHttpHeaders)].filter((v) =>
      v !== undefined
    );
    const fix = vars.length > 0
      ? `check that the environment variable ${
        vars.map((v) => `\`${v}\``).join(", ")
      } holds valid credentials`
      : `it needs credentials: set bearer_token_env_var (or env_http_headers) in ${decl.keyPath} and that environment variable`;
    return new ExtensionStartError(
      `The extension ${name} was refused by its server (HTTP ${status}): ${fix}.`,
      false,
    );
  }
  if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
    return new ExtensionStartError(
      `The extension ${name} did not answer within ${decl.connectTimeoutMs ?? decl.timeoutMs} ms.`,
      false,
      true,
    );
  }
  if (status !== undefined) {
    return new ExtensionStartError(
      `The extension ${name} cannot connect: its server answered HTTP ${status}.`,
      false,
      status >= 500 || status === 429,
    );
  }
  return new ExtensionStartError(
    `The extension ${name} cannot connect: its server could not be reached or did not speak MCP.`,
    false,
    true,
  );
}

/**
 * True when a request failed before it reached the server (so it never ran).
 *
 * @example
 * ```ts
 * import { notDelivered } from "./connection.ts";
 * notDelivered(new Error("Not connected")); // true
 * ```
 */
export function notDelivered(e: unknown): boolean {
  return e instanceof NotDeliveredError ||
    (e instanceof Error && !(e instanceof McpError) && e.message === "Not connected");
}

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

  /** The server's sandbox, undefined when unconfined; throws when it cannot be confined. */
  static #confine(o: ConnectionOptions, program: string): Confine | undefined {
    const ctx = o.sandbox;
    const stateDir = ctx?.stateDir ?? join(o.root, ".toolhost", "state");
    const { confinement } = confinementOf(o.decl, stateDir);
    if (confinement === undefined) return undefined;
    const c = openConfine(confinement, {
      ws: ctx?.ws ?? emptyWorkspace(o.root),
      scope: ctx?.scope ?? [],
      owner: ctx?.owner,
      executionPaths: o.decl.executionPaths ?? [],
      program,
    });
    if (!c.ok) {
      throw new ExtensionStartError(
        `The extension \`${o.decl.name}\` was refused. ${unconfinableMessage(c.reason)}`,
        false,
      );
    }
    return c.confine;
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
    const confine = ExtensionConnection.#confine(o, prog.path);
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

function emptyWorkspace(root: string): Workspace {
  return {
    root,
    manifestPath: join(root, "toolhost.toml"),
    artifacts: new Map(),
    evals: new Map(),
    extra: {},
  };
}
