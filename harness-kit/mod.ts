/**
 * harness-kit: helpers for tool authors writing json-protocol tools and session
 * harnesses for toolhost.
 *
 * @example
 * ```ts
 * import { PROTOCOL_VERSION } from "./mod.ts";
 * console.log(PROTOCOL_VERSION); // 1
 * ```
 *
 * @module
 */

/** The json-protocol request version toolhost sends. */
export const PROTOCOL_VERSION = 1;
