/**
 * Execution-path pinning: files and directories to SHA-256, with budgets.
 *
 * @example
 * ```ts
 * import { pinExecutionPaths, pinPath } from "./mod.ts";
 * const one = await pinPath("/work/repo", "tools/run");
 * const all = await pinExecutionPaths("/work/repo", [{ key: "run_app", paths: ["tools/run"] }]);
 * ```
 *
 * @module
 */

export { pinPath } from "./pin_path.ts";
export { pinExecutionPaths } from "./pin_execution_paths.ts";
export type {
  ExecutionPathPins,
  PinExecutionPathsOptions,
  PinRequest,
} from "./pin_execution_paths.ts";
export { DEFAULT_PIN_MAX_BYTES, DEFAULT_PIN_MAX_ENTRIES } from "./options.ts";
export type { PinOptions } from "./options.ts";
export { directoryDigest } from "./dir_digest.ts";
export type { DigestLine } from "./dir_digest.ts";
