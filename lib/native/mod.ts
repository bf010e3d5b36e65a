/**
 * The native tool catalog: `files_read`, `files_list`, `files_find`, `files_inspect`,
 * `files_search`, `files_write`, `files_edit`, `files_patch`, `shell_exec`, `git_status`,
 * `git_diff`. Declared like built-ins (`builtin = "files_edit"`), confined to the declaring
 * Artifact through the logical-path sandbox.
 *
 * @example
 * ```ts
 * import { NATIVE_NAMES } from "./mod.ts";
 * NATIVE_NAMES.includes("files_patch"); // true
 * ```
 *
 * @module
 */

export { NATIVE_LIMITS } from "./limits.ts";
export { isNativeName, NATIVE_NAMES, NATIVE_SPECS, type NativeName } from "./specs.ts";
export type { NativeEnv } from "./context.ts";
export { runNative } from "./run.ts";
