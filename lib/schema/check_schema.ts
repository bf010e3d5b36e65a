/**
 * Check a declared input schema at load time without compiling it when compiling it
 * provably cannot fail. `tools check` and `serve` must refuse a schema that does not
 * compile, but they need no validator: only a call does. A schema is left to its first
 * call (`compileSchema`, which compiles once per schema object) only when all of these
 * hold, and otherwise it is compiled here, as before:
 *
 * - it passes every check `compileSchema` makes before ajv (the same code, so the same
 *   refusals and messages: nesting, size, root type, local `$ref`s);
 * - it is at most {@linkcode DEFER_MAX_BYTES} of JSON (a bound on the work left to a call);
 * - the meta-schema fast path (simple_meta.ts) validates it: draft 2020-12 without
 *   `$schema`, only common keywords (no `$ref`, `$id`, `$async`, `$defs`, unknown
 *   keywords), nested at most 32 levels;
 * - of those keywords, the ones ajv can refuse at compile time even in a valid schema (with
 *   `strict: false`) are provably accepted: every `enum` is non-empty (ajv: "enum must have
 *   non-empty array") and every `pattern` compiles in the RE2 engine ajv is given, called
 *   as ajv calls it;
 * - this runtime allows code generation from strings (ajv's validators are generated code).
 *
 * tests/schema/deferred_compile_test.ts holds this to ajv on generated schemas: every
 * schema deferred here compiles, and `checkSchema` refuses exactly what `compileSchema`
 * refuses, with the same message.
 *
 * @module
 */

import {
  compileSchema,
  fastMetaValid,
  precheckSchema,
  re2Compiles,
  SchemaCompileError,
} from "./compile_schema.ts";
import { SCHEMA_LIST, SCHEMA_MAP, SUBSCHEMA } from "./simple_meta.ts";

/** The largest schema (bytes of JSON) whose compile may be left to its first call. */
export const DEFER_MAX_BYTES = 64 * 1024;

/**
 * Throw {@linkcode SchemaCompileError} exactly when `compileSchema(schema)` would; compile
 * the schema only when that cannot be decided without compiling (see the module).
 *
 * @example
 * ```ts
 * import { checkSchema } from "./check_schema.ts";
 * checkSchema({ type: "object", properties: { q: { type: "string", pattern: "^a" } } });
 * ```
 */
export function checkSchema(schema: unknown): void {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new SchemaCompileError("the schema must be a table (JSON object)");
  }
  const rec = schema as Record<string, unknown>;
  if (compileDeferrable(rec, precheckSchema(rec))) return;
  compileSchema(schema);
}

/**
 * Whether compiling `rec`, a schema that passed `precheckSchema` (which returned `size`),
 * provably cannot fail, so it may wait for the first call (see the module).
 *
 * @example
 * ```ts
 * import { compileDeferrable } from "./check_schema.ts";
 * compileDeferrable({ type: "object", properties: { e: { enum: [] } } }, 48); // false
 * ```
 */
export function compileDeferrable(rec: Record<string, unknown>, size: number): boolean {
  return size <= DEFER_MAX_BYTES && fastMetaValid(rec) && compilesSurely(rec, 0) &&
    codegenAllowed();
}

/**
 * For a schema the fast path validated: whether ajv's compile-time refusals of its
 * keywords are all ruled out. Walks the same schema positions as simple_meta.ts.
 */
function compilesSurely(schema: unknown, depth: number): boolean {
  if (typeof schema === "boolean") return true;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return false;
  if (depth > 32) return false;
  for (const [key, value] of Object.entries(schema)) {
    if (SUBSCHEMA.has(key)) {
      if (!compilesSurely(value, depth + 1)) return false;
    } else if (SCHEMA_MAP.has(key)) {
      if (typeof value !== "object" || value === null) return false;
      for (const sub of Object.values(value)) if (!compilesSurely(sub, depth + 1)) return false;
    } else if (SCHEMA_LIST.has(key)) {
      if (!Array.isArray(value)) return false;
      for (const sub of value) if (!compilesSurely(sub, depth + 1)) return false;
    } else if (key === "enum") {
      if (!Array.isArray(value) || value.length === 0) return false;
    } else if (key === "pattern") {
      if (typeof value !== "string" || !re2Compiles(value)) return false;
    }
  }
  return true;
}

let codegen: boolean | undefined;

/** Whether `new Function` works here (not under `--disallow-code-generation-from-strings`). */
function codegenAllowed(): boolean {
  if (codegen === undefined) {
    try {
      codegen = new Function("return true")() === true;
    } catch {
      codegen = false;
    }
  }
  return codegen;
}
