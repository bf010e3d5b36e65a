/**
 * One extension: an MCP server started lazily over stdio in its own process group,
 * initialized with the SDK's `Client`, listed once, called many times, and stopped with
 * confirmed process-group cleanup. A failed start is sticky: later uses report the same
 * error and never restart the server; a server that exits is not restarted either.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { ToolhostError } from "../../errors/errors.ts";
import { toolEnvironment } from "../../process/env.ts";
import type { ProcessRecord } from "../../process/proc_identity.ts";
import { resolveProgram } from "../../workspace/program_path.ts";
import type { ExtensionDecl } from "../../workspace/parse_extensions.ts";
import { VERSION } from "../../version.ts";
import { ProcessGroupTransport } from "./group_transport.ts";

/** Most pages of `tools/list` followed. */
export const MAX_LIST_PAGES = 16;
/** Most tools taken from one extension. */
export const MAX_EXTENSION_TOOLS = 1024;

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
}

/** A call failed in a way the model should see as an error result. */
export class ExtensionCallError extends ToolhostError {
  /** Create a value-free extension error. */
  constructor(message: string) {
    super("TOOL_ERROR", message);
  }
}

/**
 * A lazily started extension server.
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
  readonly #opts: ExtensionServerOptions;
  #transport?: ProcessGroupTransport;
  #client?: Client;
  #starting?: Promise<Client>;
  #tools?: Promise<Tool[]>;
  #ended = false;
  #closed = false;

  /** Create; nothing runs until the first list or call. */
  constructor(decl: ExtensionDecl, opts: ExtensionServerOptions) {
    this.decl = decl;
    this.#opts = opts;
    this.readiness = {
      name: decl.name,
      started: false,
      initialized: false,
      toolsListed: false,
      toolCount: 0,
    };
  }

  /** The server's process-group identity once spawned (for cleanup checks). */
  get record(): ProcessRecord | undefined {
    return this.#transport?.record;
  }

  /** Start and initialize once; the same promise (or error) is returned afterwards. */
  start(): Promise<Client> {
    this.#starting ??= this.#start().catch(async (e) => {
      this.readiness.started = this.#transport?.record !== undefined;
      this.readiness.error = messageOf(e, this.decl);
      await this.#transport?.close(); // a server that failed its handshake is stopped at once
      throw new ExtensionCallError(this.readiness.error);
    });
    return this.#starting;
  }

  async #start(): Promise<Client> {
    if (this.#closed) {
      throw new ExtensionCallError(`The extension \`${this.decl.name}\` is stopped.`);
    }
    const env = toolEnvironment(this.#opts.env, this.decl.env);
    const prog = resolveProgram(this.decl.command, this.#opts.root, this.#opts.root, env);
    if (!prog.ok) {
      throw new ExtensionCallError(
        `The extension \`${this.decl.name}\` cannot start: ${prog.reason}.`,
      );
    }
    const transport = new ProcessGroupTransport({
      command: prog.path,
      args: this.decl.args,
      cwd: this.#opts.root,
      env,
      graceMs: this.#opts.graceMs,
    });
    this.#transport = transport;
    const client = new Client({ name: "toolhost", version: VERSION }, { capabilities: {} });
    client.onclose = () => {
      this.#ended = true;
    };
    client.onerror = () => {};
    await client.connect(transport, { timeout: this.decl.timeoutMs });
    this.readiness.started = true;
    this.readiness.initialized = true;
    this.#client = client;
    return client;
  }

  /** The server's tools (first call starts it and lists; later calls reuse the answer). */
  listTools(): Promise<Tool[]> {
    this.#tools ??= this.#listTools();
    return this.#tools;
  }

  async #listTools(): Promise<Tool[]> {
    const client = await this.start();
    const out: Tool[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const res = await client.listTools(cursor ? { cursor } : undefined, {
          timeout: this.decl.timeoutMs,
        });
        out.push(...res.tools);
        cursor = res.nextCursor;
        if (!cursor || out.length >= MAX_EXTENSION_TOOLS) break;
      }
    } catch (e) {
      this.readiness.error = messageOf(e, this.decl);
      throw new ExtensionCallError(this.readiness.error);
    }
    this.readiness.toolsListed = true;
    this.readiness.toolCount = Math.min(out.length, MAX_EXTENSION_TOOLS);
    return out.slice(0, MAX_EXTENSION_TOOLS);
  }

  /**
   * Call one tool of the server with already-admitted arguments; resolves to the raw MCP
   * result. Throws {@link ExtensionCallError} (value-free) on timeout, cancellation, a
   * protocol error or a server that ended.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const client = await this.start();
    if (this.#ended || this.#closed) {
      throw new ExtensionCallError(`The extension \`${this.decl.name}\` ended.`);
    }
    try {
      return await client.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout: this.decl.timeoutMs,
      });
    } catch (e) {
      if (signal?.aborted) throw new ExtensionCallError("The call was cancelled.");
      throw new ExtensionCallError(messageOf(e, this.decl));
    }
  }

  /**
   * Stop the server and confirm that its whole process group is gone. Resolves to false
   * when cleanup could not be confirmed. Idempotent; a server never started is a no-op.
   */
  async close(): Promise<boolean> {
    this.#closed = true;
    const t = this.#transport;
    if (!t) return true;
    try {
      await this.#client?.close();
    } catch { /* the transport is closed below either way */ }
    await t.close();
    return t.cleanup?.confirmed ?? t.record === undefined;
  }
}

function messageOf(e: unknown, decl: ExtensionDecl): string {
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
  return `The extension ${name} failed.`;
}
