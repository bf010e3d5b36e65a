/**
 * What a native tool sees when it runs: the built-in view of the declaring Artifact (the
 * same logical-path sandbox), plus what process-running tools need.
 *
 * @module
 */

import type { BuiltinEnv } from "../builtins/context.ts";
import { optInt } from "../builtins/common.ts";

/** Everything a native tool needs for one call. */
export interface NativeEnv extends BuiltinEnv {
  /** State directory (private per-call directories for processes). */
  stateDir: string;
  /** The author's environment (`shell_exec` takes only PATH and HOME from it). */
  baseEnv: Readonly<Record<string, string>>;
  /** Variables granted by plugins for this call (protected bindings). */
  grantedEnv: Readonly<Record<string, string>>;
  /** Confinement of the tool's processes (`shell_exec`, git), when declared. */
  confine?: Confine;
}
import type { Confine } from "../process/sandbox_init.ts";

export { str } from "../builtins/common.ts";

/**
 * An integer argument, or `fallback`.
 *
 * @example
 * ```ts
 * import { int } from "./context.ts";
 * int(undefined, 4); // 4
 * ```
 */
export function int(v: unknown, fallback: number): number {
  return optInt(v) ?? fallback;
}

/**
 * A boolean argument, or `fallback`.
 *
 * @example
 * ```ts
 * import { bool } from "./context.ts";
 * bool(undefined, true); // true
 * ```
 */
export function bool(v: unknown, fallback: boolean): boolean {
  return typeof v === "boolean" ? v : fallback;
}
