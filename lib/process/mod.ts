/**
 * Bounded process execution: process groups with recorded identities, safe group
 * signalling, bounded stream collection, `runBounded`, tool environments and per-call
 * private directories.
 *
 * @example
 * ```ts
 * import { runBounded } from "./mod.ts";
 * const r = await runBounded({ command: "/bin/true", cwd: "/", env: {} });
 * console.log(r.exitCode); // 0
 * ```
 *
 * @module
 */

export * from "./proc_identity.ts";
export * from "./proc_budget.ts";
export * from "./kill_group.ts";
export * from "./spawn_error.ts";
export * from "./spawn_group.ts";
export * from "./bounded_collect.ts";
export * from "./run.ts";
export * from "./env.ts";
export * from "./call_dirs.ts";
