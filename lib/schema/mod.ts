/**
 * JSON Schema compilation and argument admission.
 *
 * @module
 */
export * from "./compile_schema.ts";
export * from "./admit_args.ts";
