/**
 * What a call needs from the registry that runs it: the runtime depends on this
 * interface, not on the `Registry` class, so the registry can depend on the runtime (and
 * on the lock) without an import cycle.
 *
 * @module
 */

import type { ArtifactStore } from "../artifacts/store.ts";
import type { PluginHost } from "../plugins/host.ts";
import type { Selection } from "../registry/selection.ts";
import type { SessionSupervisor } from "../sessions/supervisor.ts";
import type { ToolResult } from "../results/types.ts";
import type { Workspace } from "../workspace/types.ts";
import type { WarmPool } from "../sandbox/warm_pool.ts";

/** Options for one call. */
export interface CallOptions {
  /** Cancels the call and kills its process group. */
  signal?: AbortSignal;
}

/**
 * The registry as a call sees it. `Registry` implements it.
 *
 * @example
 * ```ts
 * import type { CallHost } from "./call_host.ts";
 * function stateDirOf(host: CallHost): string {
 *   return host.stateDir;
 * }
 * console.log(typeof stateDirOf);
 * ```
 */
export interface CallHost {
  /** The workspace. */
  readonly workspace: Workspace;
  /** The selection (eval scope and tools). */
  readonly selection: Selection;
  /** The state directory. */
  readonly stateDir: string;
  /** The author's environment. */
  readonly env: Record<string, string>;
  /** Plugins: hooks around every call, plugin tools, redaction. */
  readonly plugins: PluginHost;
  /** Artifacts validated in this conversation. */
  readonly artifacts: ArtifactStore;
  /** The registry's artifact directory. */
  readonly artifactDir: string;
  /** Tool sessions. */
  readonly sessions: SessionSupervisor;
  /** Warm sandboxes of confined command tools (lib/sandbox/warm_pool.ts), when on. */
  readonly warm?: WarmPool;
  /** Receives copies of command tools' stderr (`--stderr`; never a result), if set. */
  readonly stderr?: (chunk: Uint8Array) => void;
  /**
   * Verify, just before a tool's process starts, that what it runs is still what was
   * pinned (execution paths, and with a lock its programs): an error result naming the
   * tool and path when something changed, else undefined.
   */
  verifyBeforeRun(tool: string): Promise<ToolResult | undefined>;
}
