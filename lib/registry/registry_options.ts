/**
 * The options of `Registry.open` (registry.ts), with their defaults.
 *
 * @module
 */

import type { Plugin } from "../plugins/api.ts";
import type { RegistryExtensionOptions } from "./registry_extensions.ts";

/**
 * Options for `Registry.open`.
 *
 * @example
 * ```ts
 * import type { RegistryOptions } from "./registry_options.ts";
 * const opts: RegistryOptions = { lock: true, warmSandboxes: false };
 * console.log(opts.lock); // true
 * ```
 */
export interface RegistryOptions {
  /** State directory. Default `<workspace>/.toolhost/state`. */
  stateDir?: string;
  /** Audience the caller serves. Default `"agent"`: human evals are refused. */
  audience?: "agent" | "human";
  /** The author's environment for commands. Default: this process's environment. */
  env?: Record<string, string>;
  /**
   * TypeScript plugins (`definePlugin`), run after the manifest-enabled first-party ones.
   * Pass the same list to `loadWorkspace` when the manifest declares their tools.
   */
  plugins?: readonly Plugin[];
  /**
   * Verify `toolhost.lock` when the workspace has one: tools that differ from
   * it are listed neutrally and refused with `LOCK_MISMATCH`. Default true; `false` skips
   * verification (development only) and warns on stderr; `"ignore"` skips it silently
   * (for code that builds the lock itself).
   */
  lock?: boolean | "ignore";
  /**
   * Receives copies of what command tools and session harnesses print to stderr, for an
   * author's terminal (`tools call --stderr`). stderr never goes into a result. Default:
   * discarded.
   */
  stderr?: (chunk: Uint8Array) => void;
  /**
   * The eval's extensions (`[extensions.NAME]`): where to report skipped tools and failed
   * starts (`log`, default: nowhere), the stop grace (`graceMs`, default 2000) and the
   * restart backoff of dead servers (`restart`). Servers start on the first call to one
   * of their tools (or a live listing), never at open.
   */
  extensions?: RegistryExtensionOptions;
  /** Warm spares for command tools without limits, confined or not
   * (lib/sandbox/warm_pool.ts). Default on, unless `TOOLHOST_WARM_SANDBOXES=0` is in
   * this process's environment. */
  warmSandboxes?: boolean;
  /**
   * The caller's own secrets (`serve --http`'s bearer token): redacted from every result,
   * error and log line as protected values are, so a tool that reads one anyway (a host
   * tool can read toolhost's `/proc/<pid>/environ`) never hands it out. Values shorter
   * than 8 characters are no secret worth the name and are ignored. Default none.
   */
  secrets?: readonly string[];
}
