/**
 * The options of an `ExtensionHost` (host.ts), and the sandbox context its confined
 * servers get from them.
 *
 * @module
 */

import { join } from "node:path";
import type { ExtensionLockCheck } from "../lock/extension_lock.ts";
import type { SpillHomeDir } from "../spill/extension_spill.ts";
import { evalScope } from "../workspace/scope.ts";
import type { Workspace } from "../workspace/types.ts";
import type { ExtensionSandboxContext } from "./connection_options.ts";
import type { RestartOptions } from "./restart_policy.ts";

/** Options of `ExtensionHost` (host.ts). */
export interface ExtensionHostOptions {
  /** The author's environment. Default: this process's environment. */
  env?: Record<string, string>;
  /** Published names already taken (e.g. the registry's); such extension tools are skipped. */
  reserved?: ReadonlySet<string>;
  /** Where to report skipped tools and failed starts (one line, value-free). Default: none. */
  log?: (line: string) => void;
  /** SIGTERM → SIGKILL grace on stop, ms. Default 2000. */
  graceMs?: number;
  /** The eval's lock. Default: none (nothing is verified). */
  lock?: ExtensionLockCheck;
  /** The registry's artifact directory and store, for oversized results. */
  artifacts?: SpillHomeDir;
  /** Restart backoff and cap of dead servers. */
  restart?: RestartOptions;
  /**
   * Start no server to list: extensions the lock cannot list are left out. Default false
   * (`tools list` sets it; calls still start servers).
   */
  listOnly?: boolean;
  /** The registry's state directory (hidden from confined servers). Default `<root>/.toolhost/state`. */
  stateDir?: string;
  /** The eval served (its scope is what confined servers may read). Default: none. */
  evalId?: string;
}

/**
 * The sandbox context of the host's servers: the eval's scope and the state dir.
 *
 * @example
 * ```ts
 * import { loadWorkspaceSync } from "../workspace/load_workspace.ts";
 * import { sandboxContext } from "./host_options.ts";
 * sandboxContext(loadWorkspaceSync("examples"), { evalId: "app/review" }).owner; // "app"
 * ```
 */
export function sandboxContext(ws: Workspace, opts: ExtensionHostOptions): ExtensionSandboxContext {
  const ev = opts.evalId === undefined ? undefined : ws.evals.get(opts.evalId);
  return {
    ws,
    scope: ev === undefined ? [] : evalScope(ws, ev.id),
    owner: ev?.artifactId,
    stateDir: opts.stateDir ?? join(ws.root, ".toolhost", "state"),
  };
}
