/**
 * The plugin API: `definePlugin({ name, setup(api) })` and the types of hooks, plugin
 * tools and CLI contributions. This module imports no runtime of toolhost, so plugins
 * that use it stay independent of the registry.
 *
 * @module
 */

import type { Command } from "commander";
import type { ToolResult } from "../results/types.ts";
import type { BuiltinEnv } from "../builtins/context.ts";

/** What every hook learns about a call. `args` is a deep-frozen copy of the admitted arguments. */
export interface CallInfo {
  /** Random id of this call (the same in every hook of the call). */
  readonly callId: string;
  /** Eval id, when the registry was opened for an eval. */
  readonly eval?: string;
  /** Published tool name (`<tool>_<artifactId>`, or an eval-wide name). */
  readonly tool: string;
  /** Declaring Artifact, for declared tools. */
  readonly artifactId?: string;
  /** Built-in, native or plugin tool name, for built-in-like tools. */
  readonly builtin?: string;
  /** The tool session a bound command tool runs in. */
  readonly session?: string;
  /** The admitted arguments (deep-frozen: hooks can never rewrite them). */
  readonly args: Readonly<Record<string, unknown>>;
}

/** A hook's view of a call: the call plus a signal that fires at the hook's deadline. */
export interface HookContext extends CallInfo {
  /** Aborted when the hook's timeout passes or the call is cancelled. */
  readonly signal: AbortSignal;
}

/**
 * What `beforeCall` returns: nothing or `allow` lets the call go on; `deny` stops it and
 * its reason becomes the call's tool error. `env` adds variables to the environment of
 * the process the call starts (command tools and `shell_exec`), never to its arguments.
 */
export type BeforeCallDecision =
  | void
  | undefined
  | { decision: "allow"; env?: Record<string, string> }
  | { decision: "deny"; reason: string };

/** A `beforeCall` hook. Throwing or timing out denies the call (fail closed). */
export type BeforeCallHook = (
  call: HookContext,
) => BeforeCallDecision | Promise<BeforeCallDecision>;

/**
 * An `afterCall` hook: return nothing to keep the result, or a replacement result, which
 * is re-validated against the output limits. Throwing or timing out withholds the result.
 */
export type AfterCallHook = (
  result: Readonly<ToolResult>,
  call: HookContext,
) => ToolResult | void | Promise<ToolResult | void>;

/** How a call ended, for observers. */
export interface CallEndedInfo extends CallInfo {
  /** `ok` (success result), `error` (error result) or `denied` (a hook refused it). */
  readonly outcome: "ok" | "error" | "denied";
  /** ISO time the call reached the plugins. */
  readonly startedAt: string;
  /** Wall time from the first hook to the final result, in ms. */
  readonly durationMs: number;
  /** UTF-8 bytes of the final result's JSON. */
  readonly resultBytes: number;
}

/** A `callEnded` observer: runs for every call (denied ones included); cannot change it. */
export type CallEndedHook = (info: CallEndedInfo) => void | Promise<void>;

/** A tool session event. */
export interface SessionInfo {
  /** Eval id, when known. */
  readonly eval?: string;
  /** The Artifact declaring the session. */
  readonly artifactId: string;
  /** Session name. */
  readonly session: string;
  /** Why it ended (`stopped`, `exited`, `failed`, ...), for `sessionEnded`. */
  readonly reason?: string;
}

/** A session observer. */
export type SessionHook = (info: SessionInfo) => void | Promise<void>;

/** Options of a call hook. */
export interface HookOptions {
  /** Published tool-name globs (`*`, `?`) the hook runs for. Default: every tool. */
  tools?: readonly string[];
  /** Deadline in ms (1..600000). Default 10000. */
  timeoutMs?: number;
}

/** What a plugin tool's `run` receives besides its arguments. */
export interface PluginToolContext {
  /** The call (arguments deep-frozen). */
  readonly call: CallInfo;
  /** The plugin's manifest configuration (`[plugins.NAME]`), frozen. */
  readonly config: Readonly<Record<string, unknown>>;
  /** The registry's state directory. */
  readonly stateDir: string;
  /**
   * For a tool declared on an Artifact: the declaring Artifact and its descendants, for
   * use with the logical-path sandbox. Absent for always-listed tools.
   */
  readonly files?: BuiltinEnv;
  /** Cancellation. */
  readonly signal?: AbortSignal;
}

/** An extra tool a plugin provides, registered like a built-in. */
export interface PluginTool {
  /** Tool name, `[a-z0-9][a-z0-9_-]*`; declared as `builtin = "<name>"`. */
  readonly name: string;
  /** Description (may contain `{artifactName}` when declared on an Artifact). */
  readonly description: string;
  /** Input JSON Schema (root type object). */
  readonly inputSchema: Record<string, unknown>;
  /** List it in every agent eval under its bare name, without a declaration. Default false. */
  readonly alwaysListed?: boolean;
  /** Run it with admitted arguments; return a normalized result. */
  run(
    args: Readonly<Record<string, unknown>>,
    ctx: PluginToolContext,
  ): ToolResult | Promise<ToolResult>;
}

/** The API a plugin's `setup` receives, once per open registry. */
export interface PluginApi {
  /** The plugin's name. */
  readonly name: string;
  /** Its manifest configuration (`[plugins.NAME]`), frozen; `{}` when absent. */
  readonly config: Readonly<Record<string, unknown>>;
  /** The registry's state directory (may not exist yet; create what you need lazily). */
  readonly stateDir: string;
  /** The workspace root. */
  readonly workspaceRoot: string;
  /** The eval id, when the registry was opened for an eval. */
  readonly evalId?: string;
  /** The author's environment the registry runs commands with (frozen). */
  readonly env: Readonly<Record<string, string>>;
  /** Add a `beforeCall` hook. */
  beforeCall(hook: BeforeCallHook, options?: HookOptions): void;
  /** Add an `afterCall` hook. */
  afterCall(hook: AfterCallHook, options?: HookOptions): void;
  /** Observe every finished call. */
  callEnded(hook: CallEndedHook): void;
  /** Observe tool sessions starting. */
  sessionStarted(hook: SessionHook): void;
  /** Observe tool sessions ending. */
  sessionEnded(hook: SessionHook): void;
  /** Redact this value (at least 1 character) from every result, error and log line. */
  redact(value: string): void;
  /**
   * Keep this variable of the author's environment out of every process the registry
   * starts (command tools, sessions, hook commands, extensions). It stays in
   * {@link PluginApi.env}; grant it to one call's process with a `beforeCall` `env`.
   */
  withholdEnv(name: string): void;
  /** Write a line to the operator log (`<stateDir>/plugins.log`), never to the model. */
  log(message: string): void;
  /** Run when the registry closes. */
  onClose(fn: () => void | Promise<void>): void;
}

/** What a plugin's CLI subcommands get: output and the exit-code setter. */
export interface PluginCliContext {
  /** Write to stdout. */
  out(text: string): void;
  /** Write to stderr. */
  err(text: string): void;
  /** Set the exit code (0 ok, 1 failure, 2 invalid invocation). */
  done(code: number): void;
  /**
   * Load the workspace named by `--repo` (default: the nearest folder above the current
   * one holding toolhost.toml): its root, its state directory (`--state-dir`, default
   * `<workspace>/.toolhost/state`), this plugin's configuration and whether it is enabled.
   */
  workspace(o: { repo?: string; stateDir?: string }): Promise<PluginCliWorkspace>;
}

/** What {@link PluginCliContext.workspace} returns. */
export interface PluginCliWorkspace {
  /** Canonical workspace root. */
  root: string;
  /** State directory. */
  stateDir: string;
  /** This plugin's `[plugins.NAME]` table (frozen; `{}` when absent). */
  config: Readonly<Record<string, unknown>>;
  /** Whether `[plugins] enable` names this plugin. */
  enabled: boolean;
}

/** What `validateConfig` learns about the workspace. */
export interface ConfigContext {
  /** Canonical workspace root (e.g. to refuse files inside it). */
  root: string;
}

/** Reports a configuration problem at a key below `[plugins.NAME]`. */
export type ConfigReporter = (key: string, message: string) => void;

/** A plugin as written. */
export interface PluginDefinition {
  /** Name, `[a-z0-9][a-z0-9_-]*`, at most 64 characters. */
  name: string;
  /** One line for `--help` and docs. */
  description?: string;
  /** Register hooks; runs once per open registry (may be async; failure fails the open). */
  setup?(api: PluginApi): void | Promise<void>;
  /** Extra tools. */
  tools?: readonly PluginTool[];
  /**
   * Validate `[plugins.NAME]` when the manifest loads; report every problem (key paths are
   * relative to the table). Without it, a configuration table is a declaration error.
   */
  validateConfig?(
    config: Record<string, unknown>,
    report: ConfigReporter,
    ctx: ConfigContext,
  ): void;
  /** Extra CLI subcommands (added to `toolhost` for first-party plugins). */
  cliCommands?(ctx: PluginCliContext): Command[];
}

/** A defined plugin (frozen). */
export interface Plugin extends Readonly<PluginDefinition> {
  /** Brand set by {@link definePlugin}. */
  readonly kind: "toolhost-plugin";
  /** The plugin's tools (frozen, possibly empty). */
  readonly tools: readonly PluginTool[];
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * Define a plugin. Checks the name and tool names (no values are ever echoed) and freezes
 * the definition.
 *
 * @throws {TypeError} for an invalid name, tool name or duplicate tool.
 * @example
 * ```ts
 * import { definePlugin } from "./api.ts";
 * export default definePlugin({
 *   name: "no-shell",
 *   setup(api) {
 *     api.beforeCall(() => ({ decision: "deny", reason: "shell is disabled" }), {
 *       tools: ["shell_exec_*"],
 *     });
 *   },
 * });
 * ```
 */
export function definePlugin(def: PluginDefinition): Plugin {
  if (typeof def?.name !== "string" || !NAME.test(def.name)) {
    throw new TypeError("plugin names must match [a-z0-9][a-z0-9_-]* (at most 64 characters)");
  }
  const tools = [...(def.tools ?? [])];
  const seen = new Set<string>();
  for (const t of tools) {
    if (typeof t?.name !== "string" || !NAME.test(t.name)) {
      throw new TypeError(`plugin \`${def.name}\`: tool names must match [a-z0-9][a-z0-9_-]*`);
    }
    if (seen.has(t.name)) {
      throw new TypeError(`plugin \`${def.name}\`: tool \`${t.name}\` is defined twice`);
    }
    if (typeof t.run !== "function") {
      throw new TypeError(`plugin \`${def.name}\`: tool \`${t.name}\` has no run function`);
    }
    seen.add(t.name);
  }
  return Object.freeze({
    ...def,
    tools: Object.freeze(tools.map((t) => Object.freeze(t))),
    kind: "toolhost-plugin" as const,
  });
}

/**
 * Is `v` a plugin made by {@link definePlugin}?
 *
 * @example
 * ```ts
 * import { definePlugin, isPlugin } from "./api.ts";
 * isPlugin(definePlugin({ name: "x" })); // true
 * ```
 */
export function isPlugin(v: unknown): v is Plugin {
  return typeof v === "object" && v !== null &&
    (v as { kind?: unknown }).kind === "toolhost-plugin";
}
