/**
 * The extensions one eval admits, as a tool source: servers start lazily on the first
 * listing or call, their tools are published as `<tool>_<NAME>`, calls are admitted
 * against the server's own input schema (the same 64 KiB / JSON Schema admission as
 * declared tools), results are normalized and odek envelopes validated against the
 * extension's artifact roots. `close()` stops every started server and confirms that its
 * process group is gone.
 *
 * @module
 */

import { join } from "node:path";
import process from "node:process";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { CleanupFailed } from "../../errors/errors.ts";
import type { ToolListing } from "../../registry/registry.ts";
import { errorResult, LIMITS, type ToolResult } from "../../results/types.ts";
import { admitArgs, InvalidArguments } from "../../schema/admit_args.ts";
import { type CompiledSchema, compileSchema } from "../../schema/compile_schema.ts";
import { evalExtensions, type ExtensionDecl } from "../../workspace/parse_extensions.ts";
import type { Workspace } from "../../workspace/types.ts";
import { fromMcpResult } from "../result_mapping.ts";
import { envelopeMapper } from "./envelope.ts";
import {
  ExtensionCallError,
  type ExtensionReadiness,
  ExtensionServer,
} from "./extension_server.ts";

/** MCP tool names: 1–128 of `[A-Za-z0-9_.-]`. */
export const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Options of {@link ExtensionHost}. */
export interface ExtensionHostOptions {
  /** The author's environment. Default: this process's environment. */
  env?: Record<string, string>;
  /** Published names already taken (e.g. the registry's); such extension tools are skipped. */
  reserved?: ReadonlySet<string>;
  /** Where to report skipped tools and failed starts (one line, value-free). Default: none. */
  log?: (line: string) => void;
  /** SIGTERM → SIGKILL grace on stop, ms. Default 2000. */
  graceMs?: number;
}

interface PublishedTool {
  listing: ToolListing;
  server: ExtensionServer;
  remoteName: string;
  schema: CompiledSchema;
}

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
  readonly #roots: Map<string, string[]>;
  #listing?: Promise<Map<string, PublishedTool>>;

  /** Create a host for `decls`; nothing runs until the first list or call. */
  constructor(ws: Workspace, decls: ExtensionDecl[], opts: ExtensionHostOptions = {}) {
    this.#opts = opts;
    const env = opts.env ?? processEnv();
    this.servers = decls.map((d) =>
      new ExtensionServer(d, { root: ws.root, env, graceMs: opts.graceMs })
    );
    this.#roots = new Map(decls.map((d) => [d.name, d.artifactRoots.map((r) => join(ws.root, r))]));
  }

  /** The host for the extensions `evalId` admits (possibly none). */
  static forEval(ws: Workspace, evalId: string, opts: ExtensionHostOptions = {}): ExtensionHost {
    return new ExtensionHost(ws, evalExtensions(ws, evalId), opts);
  }

  /** Published tools of every admitted extension; a server that fails contributes none. */
  async list(): Promise<ToolListing[]> {
    return [...(await this.#tools()).values()].map((t) => t.listing);
  }

  /** Whether `name` is one of this host's published tools (starts servers to find out). */
  async has(name: string): Promise<boolean> {
    if (this.servers.length === 0) return false;
    return (await this.#tools()).has(name);
  }

  #tools(): Promise<Map<string, PublishedTool>> {
    this.#listing ??= this.#collect();
    return this.#listing;
  }

  async #collect(): Promise<Map<string, PublishedTool>> {
    const lists = await Promise.all(this.servers.map(async (s) => {
      try {
        return { s, tools: await s.listTools() };
      } catch (e) {
        this.#opts.log?.(`extension \`${s.decl.name}\` is unavailable: ${(e as Error).message}`);
        return { s, tools: [] as Tool[] };
      }
    }));
    const out = new Map<string, PublishedTool>();
    for (const { s, tools } of lists) {
      for (const t of tools) {
        const p = this.#publish(s, t);
        if (typeof p === "string") {
          this.#opts.log?.(`extension \`${s.decl.name}\`: tool skipped: ${p}`);
        } else if (out.has(p.listing.name) || this.#opts.reserved?.has(p.listing.name)) {
          this.#opts.log?.(
            `extension \`${s.decl.name}\`: tool skipped: \`${p.listing.name}\` is taken`,
          );
        } else out.set(p.listing.name, p);
      }
    }
    return out;
  }

  #publish(server: ExtensionServer, t: Tool): PublishedTool | string {
    const remote = typeof t.name === "string" ? t.name : "";
    const name = `${remote}_${server.decl.name}`;
    if (!MCP_TOOL_NAME.test(remote) || !MCP_TOOL_NAME.test(name)) {
      return "its name is not a valid MCP tool name of at most 128 characters once published";
    }
    let schema: CompiledSchema;
    try {
      schema = compileSchema(t.inputSchema);
    } catch {
      return `\`${name}\`: its input schema does not compile`;
    }
    const description = typeof t.description === "string"
      ? t.description.slice(0, LIMITS.maxDescriptionUnits)
      : `Tool \`${remote}\` of extension \`${server.decl.name}\`.`;
    const inputSchema = t.inputSchema as Record<string, unknown>;
    return { listing: { name, description, inputSchema }, server, remoteName: remote, schema };
  }

  /**
   * Call a published extension tool. Always resolves to a ToolResult (unknown tool,
   * refused arguments, timeouts, invalid output and refused envelopes are error results).
   */
  async call(
    name: string,
    args: unknown,
    opts: { signal?: AbortSignal } = {},
  ): Promise<ToolResult> {
    const tool = (await this.#tools()).get(name);
    if (!tool) return errorResult(`No tool \`${name}\` is available from this eval's extensions.`);
    let admitted: Record<string, unknown>;
    try {
      admitted = admitArgs(args, tool.schema);
    } catch (e) {
      if (e instanceof InvalidArguments) return errorResult(e.message);
      throw e;
    }
    if (opts.signal?.aborted) return errorResult("The call was cancelled before it started.");
    const ext = tool.server.decl.name;
    let raw: unknown;
    try {
      raw = await tool.server.callTool(tool.remoteName, admitted, opts.signal);
    } catch (e) {
      if (e instanceof ExtensionCallError) return errorResult(e.message);
      throw e;
    }
    return fromMcpResult(raw, { mapText: envelopeMapper(ext, this.#roots.get(ext) ?? []) });
  }

  /** Readiness of every admitted extension (starts and lists them). */
  async readiness(): Promise<ExtensionReadiness[]> {
    await this.#tools();
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
  }
}

function processEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return out;
}
