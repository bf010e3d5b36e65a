/**
 * The json and plain command-tool protocols: the json request, result normalization
 * (closed shapes, limits, authored errors, images), plain argv substitution and plain
 * output cleaning, and end-to-end invocation.
 *
 * @example
 * ```ts
 * import { substitutePlainArgv } from "./mod.ts";
 * substitutePlainArgv(["{q}"], ["q"], { q: "a b" }); // ["a b"]
 * ```
 *
 * @module
 */

export * from "./json_request.ts";
export * from "./json_validate.ts";
export * from "./json_output.ts";
export * from "./image_block.ts";
export * from "./output_file.ts";
export * from "./run_errors.ts";
export * from "./plain_argv.ts";
export * from "../text/text_clean.ts";
export * from "./plain_output.ts";
export * from "./invoke.ts";
