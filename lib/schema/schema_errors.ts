/**
 * The refusal of an input schema ({@linkcode SchemaCompileError}), shared by the compiler
 * and the ajv instances it compiles with.
 *
 * @module
 */

import type { SchemaHint } from "./compile_hint.ts";

/**
 * Why a schema was rejected; never contains argument values. `hint`, when the failure is
 * one compile_hint.ts knows, says where in the schema and which rule, in words (the
 * message keeps the compiler's text).
 *
 * @example
 * ```ts
 * import { SchemaCompileError } from "./schema_errors.ts";
 * const e = new SchemaCompileError("the schema does not compile: …", {
 *   keyPath: "properties.q.minLength",
 *   rule: "must be at least 0",
 * });
 * console.log(e.hint?.keyPath); // "properties.q.minLength"
 * ```
 */
export class SchemaCompileError extends Error {
  /** Where and why, in words, when known. */
  readonly hint?: SchemaHint;
  /** A refusal with its message and, when known, its hint. */
  constructor(message: string, hint?: SchemaHint) {
    super(message);
    if (hint !== undefined) this.hint = hint;
  }
}
