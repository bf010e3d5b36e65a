/**
 * The CommonJS wrapper the SEA's CLI bundle is compiled in, shared by the build (which
 * makes the bundle's V8 code cache) and the launcher (which uses it): a cache is only
 * accepted for the exact source it was made from.
 *
 * @module
 */

/** Text before the bundle. */
export const WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname) {";
/** Text after the bundle. */
export const WRAPPER_TAIL = "\n})";

/**
 * The bundle's source as compiled: wrapped.
 *
 * @example
 * ```ts
 * import { wrapBundle } from "./sea_wrapper.ts";
 * wrapBundle("module.exports = 1;").startsWith("(function"); // true
 * ```
 */
export function wrapBundle(source: string): string {
  return WRAPPER_HEAD + source + WRAPPER_TAIL;
}
