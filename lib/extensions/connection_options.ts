/**
 * What one generation of an extension server (connection.ts) is opened with.
 *
 * @module
 */

import type { Protector } from "../redact/types.ts";
import type { ExtensionDecl } from "../workspace/parse_extensions.ts";
import type { Workspace } from "../workspace/types.ts";

/**
 * What one generation needs.
 *
 * @example
 * ```ts
 * import type { ConnectionOptions } from "./connection_options.ts";
 * const graceMs: ConnectionOptions["graceMs"] = 2000;
 * console.log(graceMs); // 2000
 * ```
 */
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

/**
 * What a confined extension server's sandbox is built from.
 *
 * @example
 * ```ts
 * import type { ExtensionSandboxContext } from "./connection_options.ts";
 * const scope: ExtensionSandboxContext["scope"] = ["docs"];
 * console.log(scope.length); // 1
 * ```
 */
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
