/**
 * What a plugin host is made of (`openPluginHost` fills it): the hooks with their owners,
 * matchers and deadlines, the observers, teardown callbacks, the shared redactor, withheld
 * variables and plugin tools; and what passes between the host and a call (its subject,
 * its grant).
 *
 * @module
 */

import type {
  AfterCallHook,
  BeforeCallHook,
  CallEndedHook,
  PluginTool,
  SessionHook,
} from "./api.ts";
import { Redactor } from "./redact.ts";

/** A hook with its owner, matcher and deadline. */
export interface HookEntry<F> {
  /** Plugin name or manifest key path (`hooks.before_call[0]`). */
  source: string;
  /** The hook. */
  fn: F;
  /** Published tool-name globs; absent = every tool. */
  tools?: readonly string[];
  /** Deadline in ms. */
  timeoutMs: number;
}

/** What the executor receives from the hooks: environment contributions. */
export interface CallGrant {
  /** Variables for the process the call starts (command tools, `shell_exec`). */
  env: Record<string, string>;
  /** The call's id (as hooks saw it). */
  callId: string;
}

/** A call as the host sees it: who is called, with which admitted arguments. */
export interface CallSubject {
  /** Published tool name. */
  tool: string;
  /** Declaring Artifact. */
  artifactId?: string;
  /** Built-in, native or plugin tool name. */
  builtin?: string;
  /** Bound session. */
  session?: string;
  /** Admitted arguments (copied and frozen for hooks). */
  args: Record<string, unknown>;
}

/** The mutable parts a host is built from (see `openPluginHost`). */
export interface HostParts {
  /** Eval id. */
  evalId?: string;
  /** State directory (log file). */
  stateDir: string;
  /** Workspace root: state-directory components below it must not be links. */
  root?: string;
  /** Hooks in run order. */
  before: HookEntry<BeforeCallHook>[];
  /** Hooks in run order. */
  after: HookEntry<AfterCallHook>[];
  /** Observers. */
  ended: HookEntry<CallEndedHook>[];
  /** Observers. */
  sessionStarted: HookEntry<SessionHook>[];
  /** Observers. */
  sessionEnded: HookEntry<SessionHook>[];
  /** Teardown callbacks. */
  closers: { source: string; fn: () => void | Promise<void> }[];
  /** Shared redactor. */
  redactor: Redactor;
  /** Variables plugins withhold from the registry's environment (`api.withholdEnv`). */
  withheld: Set<string>;
  /** Tools of the active plugins, by tool name. */
  tools: Map<string, ActiveTool>;
}

/** A tool of an active plugin. */
export interface ActiveTool {
  /** The providing plugin's name. */
  plugin: string;
  /** The tool. */
  tool: PluginTool;
  /** The plugin's configuration (frozen). */
  config: Readonly<Record<string, unknown>>;
}

/**
 * Empty host parts for a state directory.
 *
 * @example
 * ```ts
 * import { emptyParts } from "./host_parts.ts";
 * emptyParts("/tmp/state").before.length; // 0
 * ```
 */
export function emptyParts(stateDir: string, evalId?: string, root?: string): HostParts {
  return {
    evalId,
    stateDir,
    root,
    before: [],
    after: [],
    ended: [],
    sessionStarted: [],
    sessionEnded: [],
    closers: [],
    redactor: new Redactor(),
    withheld: new Set(),
    tools: new Map(),
  };
}
