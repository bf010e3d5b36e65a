/**
 * The toolhost version (kept equal to deno.json's `version`; a test checks it).
 *
 * @module
 */

/** The toolhost version. */
export const VERSION = "0.1.0";
