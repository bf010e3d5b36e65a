/**
 * The registry of one eval: lists its tools under stable names and (in later layers)
 * runs them. Opening pins execution paths; listing creates nothing and runs nothing.
 *
 * @module
 */

import { join } from "node:path";
import { InvocationError } from "../errors/errors.ts";
import type { ToolResult } from "../results/types.ts";
import type { Workspace } from "../workspace/types.ts";
import { findTool, type RegisteredTool, type Selection, selectTools } from "./selection.ts";

/** One listed tool. */
export interface ToolListing {
  /** Published name `<tool>_<artifactId>`. */
  name: string;
  /** Rendered description. */
  description: string;
  /** Input JSON Schema (root type object). */
  inputSchema: Record<string, unknown>;
}

/** Options for {@link Registry.open}. */
export interface RegistryOptions {
  /** State directory. Default `<workspace>/.toolhost/state`. */
  stateDir?: string;
  /** Audience the caller serves. Default `"agent"`: human evals are refused. */
  audience?: "agent" | "human";
  /** The author's environment for commands. Default: this process's environment. */
  env?: Record<string, string>;
}

/** Options for one call. */
export interface CallOptions {
  /** Cancels the call and kills its process group. */
  signal?: AbortSignal;
}

/** Per-call execution hook supplied by the runtime layer. */
export type CallHandler = (
  reg: Registry,
  tool: RegisteredTool,
  args: unknown,
  opts: CallOptions,
) => Promise<ToolResult>;

let callHandler: CallHandler | undefined;

/**
 * Install the runtime that executes calls (done by lib/runtime on import).
 *
 * @example
 * ```ts
 * import { setCallHandler } from "./registry.ts";
 * setCallHandler(async () => ({ content: [{ type: "text", text: "ok" }], isError: false }));
 * ```
 */
export function setCallHandler(h: CallHandler): void {
  callHandler = h;
}

/**
 * An open eval.
 *
 * @example
 * ```ts
 * import { loadWorkspace } from "../workspace/load_workspace.ts";
 * import { Registry } from "./registry.ts";
 * const ws = await loadWorkspace("examples");
 * const reg = await Registry.open(ws, "app/review");
 * console.log(reg.list().map((t) => t.name));
 * await reg.close();
 * ```
 */
export class Registry {
  /** The workspace. */
  readonly workspace: Workspace;
  /** The selection (eval scope and tools). */
  readonly selection: Selection;
  /** The state directory. */
  readonly stateDir: string;
  /** The author's environment. */
  readonly env: Record<string, string>;
  /** Execution-path pins: tool or session key → declared path → sha256. */
  readonly pins: Record<string, Record<string, string>>;
  #closed = false;

  /** Use {@link Registry.open}. */
  constructor(
    workspace: Workspace,
    selection: Selection,
    opts: Required<Pick<RegistryOptions, "stateDir" | "env">>,
    pins: Record<string, Record<string, string>>,
  ) {
    this.workspace = workspace;
    this.selection = selection;
    this.stateDir = opts.stateDir;
    this.env = opts.env;
    this.pins = pins;
  }

  /**
   * Open an eval: resolve its scope and tools and pin their execution paths. Throws
   * {@link InvocationError} for an unknown eval or the wrong audience, and
   * `PreparationFailed` when a path cannot be pinned.
   */
  static async open(ws: Workspace, evalId: string, opts: RegistryOptions = {}): Promise<Registry> {
    const selection = selectTools(ws, { eval: evalId });
    const audience = opts.audience ?? "agent";
    if (selection.audience !== audience) {
      throw new InvocationError(
        `eval \`${evalId}\` is a ${selection.audience} eval; this registry serves ${audience} evals`,
      );
    }
    const stateDir = opts.stateDir ?? join(ws.root, ".toolhost", "state");
    const env = opts.env ?? processEnv();
    const pins = await pinHook(ws, selection);
    return new Registry(ws, selection, { stateDir, env }, pins);
  }

  /** The tools this eval publishes. Creates nothing, runs nothing. */
  list(): ToolListing[] {
    return this.selection.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
    }));
  }

  /** Execution-path provenance: `{ executionPaths: { TOOL: { PATH: sha256 } } }`. */
  provenance(): { executionPaths: Record<string, Record<string, string>> } {
    return { executionPaths: structuredClone(this.pins) };
  }

  /** Find a tool by its published name. */
  tool(name: string): RegisteredTool {
    return findTool(this.selection, name, false);
  }

  /** Call a tool by published name; always resolves to a normalized ToolResult. */
  call(name: string, args: unknown, opts: CallOptions = {}): Promise<ToolResult> {
    if (this.#closed) return Promise.reject(new InvocationError("the registry is closed"));
    const tool = this.tool(name);
    if (!callHandler) return Promise.reject(new InvocationError("no runtime is installed"));
    return callHandler(this, tool, args, opts);
  }

  /** Whether {@link Registry.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Stop sessions and remove per-registry state; confirms cleanup. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await closeHook(this);
  }
}

/** Pinning and close hooks installed by the runtime layer. */
export interface RegistryHooks {
  /** Pin execution paths at open. */
  pin?: (ws: Workspace, sel: Selection) => Promise<Record<string, Record<string, string>>>;
  /** Cleanup at close. */
  close?: (reg: Registry) => Promise<void>;
}

let hooks: RegistryHooks = {};

/**
 * Install open/close hooks (done by lib/runtime on import).
 *
 * @example
 * ```ts
 * import { setRegistryHooks } from "./registry.ts";
 * setRegistryHooks({ pin: () => Promise.resolve({}) });
 * ```
 */
export function setRegistryHooks(h: RegistryHooks): void {
  hooks = { ...hooks, ...h };
}

function pinHook(ws: Workspace, sel: Selection): Promise<Record<string, Record<string, string>>> {
  return hooks.pin ? hooks.pin(ws, sel) : Promise.resolve({});
}

function closeHook(reg: Registry): Promise<void> {
  return hooks.close ? hooks.close(reg) : Promise.resolve();
}

function processEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return out;
}
