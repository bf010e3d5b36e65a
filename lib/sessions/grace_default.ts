/**
 * The default grace between SIGTERM and SIGKILL when a session is stopped or swept, in a
 * file of its own so the session options and the sweep options share it without a cycle.
 *
 * @example
 * ```ts
 * import { DEFAULT_GRACE_MS } from "./grace_default.ts";
 * DEFAULT_GRACE_MS; // 2000
 * ```
 *
 * @module
 */

/** Default SIGTERM→SIGKILL grace when a session's process group is ended, in ms. */
export const DEFAULT_GRACE_MS = 2000;
