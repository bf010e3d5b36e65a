/**
 * Compile a tool's input JSON Schema with ajv: draft 2020-12 unless `$schema` names
 * another draft, no file/HTTP `$ref` resolution, defaults never applied, and `pattern`
 * keywords evaluated by a linear-time RE2 engine so an argument cannot stall admission.
 *
 * @module
 */

import type { AnySchema, ValidateFunction } from "ajv";
import {
  ajvFor,
  type AjvInstance,
  DRAFT_06,
  draftOf,
  FULL_FORMATS,
  re2Engine,
} from "./ajv_instances.ts";
import { SchemaCompileError } from "./schema_errors.ts";
import { LIMITS } from "../results/types.ts";
import { nestingWithin } from "../results/json_depth.ts";
import { simpleSchemaValid } from "./simple_meta.ts";
import { explainCompileFailure } from "./compile_hint.ts";

export { SchemaCompileError } from "./schema_errors.ts";

/** A compiled input schema. */
export interface CompiledSchema {
  /** The schema as declared. */
  schema: Record<string, unknown>;
  /** ajv's validate function. */
  validate: ValidateFunction;
  /** Property names appearing anywhere under `properties` (safe to echo in errors). */
  knownKeys: Set<string>;
}

/** Whether a string `$id` or `id` appears anywhere (a false positive only costs time). */
function hasId(node: unknown, depth = 0): boolean {
  if (depth > MAX_SCHEMA_DEPTH || typeof node !== "object" || node === null) return false;
  if (Array.isArray(node)) return node.some((v) => hasId(v, depth + 1));
  for (const [k, v] of Object.entries(node)) {
    if ((k === "$id" || k === "id") && typeof v === "string") return true;
    if (hasId(v, depth + 1)) return true;
  }
  return false;
}

/** Deepest nesting of a schema (its arrays and objects). */
export const MAX_SCHEMA_DEPTH = 256;

function collectKeys(node: unknown, out: Set<string>, depth = 0): void {
  if (depth > 64 || typeof node !== "object" || node === null) return;
  if (Array.isArray(node)) {
    for (const v of node) collectKeys(v, out, depth + 1);
    return;
  }
  const rec = node as Record<string, unknown>;
  for (const k of ["properties", "dependentRequired", "dependentSchemas"]) {
    const props = rec[k];
    if (typeof props === "object" && props !== null && !Array.isArray(props)) {
      for (const name of Object.keys(props)) out.add(name);
    }
  }
  if (Array.isArray(rec.required)) {
    for (const r of rec.required) if (typeof r === "string") out.add(r);
  }
  for (const v of Object.values(rec)) collectKeys(v, out, depth + 1);
}

/**
 * Compile an input schema. Throws {@link SchemaCompileError} with a short reason when
 * the schema is not an object schema, is over 8 MiB, names an unknown draft, uses a
 * non-local `$ref`, or does not compile.
 *
 * @example
 * ```ts
 * import { compileSchema } from "./compile_schema.ts";
 * const c = compileSchema({ type: "object", properties: { q: { type: "string" } } });
 * c.validate({ q: "x" }); // true
 * ```
 */
export function compileSchema(schema: unknown): CompiledSchema {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new SchemaCompileError("the schema must be a table (JSON object)");
  }
  // A schema object is compiled once however many places ask (the load-time check, the
  // first call, plugin and artifact tools): compiling costs milliseconds, and declarations
  // are never mutated after they are read.
  const known = compiledSchemas.get(schema);
  if (known) return known;
  const compiled = compileFresh(schema);
  compiledSchemas.set(schema, compiled);
  return compiled;
}

const compiledSchemas = new WeakMap<object, CompiledSchema>();

/**
 * The checks {@linkcode compileSchema} makes before ajv sees a schema object, in its
 * order and with its messages (nesting, size, root type, local `$ref`s); returns the
 * schema's size in bytes of JSON.
 *
 * @example
 * ```ts
 * import { precheckSchema } from "./compile_schema.ts";
 * precheckSchema({ type: "object" }); // 15
 * ```
 */
export function precheckSchema(rec: Record<string, unknown>): number {
  // Before anything recursive (serializing, ajv) can overflow the stack on it.
  if (!nestingWithin(rec, MAX_SCHEMA_DEPTH)) {
    throw new SchemaCompileError(`the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  }
  const size = new TextEncoder().encode(JSON.stringify(rec)).byteLength;
  if (size > LIMITS.maxDeclarationBytes) {
    throw new SchemaCompileError(`the schema is larger than 8 MiB (${size} bytes)`);
  }
  if (rec.type !== "object") {
    throw new SchemaCompileError('the schema must have root `type = "object"`');
  }
  checkRefsAreLocal(rec);
  return size;
}

/**
 * Whether the hand-written meta-schema check (simple_meta.ts) validates `rec` as a draft
 * 2020-12 schema without ajv: `true` is certain, `false` means "ask ajv".
 *
 * @example
 * ```ts
 * import { fastMetaValid } from "./compile_schema.ts";
 * fastMetaValid({ type: "object", properties: { q: { type: "string" } } }); // true
 * ```
 */
export function fastMetaValid(rec: Record<string, unknown>): boolean {
  return rec.$schema === undefined && simpleSchemaValid(rec, MAX_FAST_META_DEPTH, regexFormat());
}

/**
 * Whether `pattern` compiles in the RE2 engine ajv is given for `pattern` keywords, called
 * exactly as ajv calls it (flags `"u"`).
 *
 * @example
 * ```ts
 * import { re2Compiles } from "./compile_schema.ts";
 * re2Compiles("^[a-z]+$"); // true
 * re2Compiles("(?=a)"); // false: RE2 has no lookahead
 * ```
 */
export function re2Compiles(pattern: string): boolean {
  try {
    re2Engine(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

function compileFresh(schema: object): CompiledSchema {
  const rec = schema as Record<string, unknown>;
  precheckSchema(rec);
  // Common schemas are checked against the 2020-12 meta-schema by hand (exactly, or not at
  // all); the rest by ajv's compiled meta-schema validator.
  const prevalidated = fastMetaValid(rec);
  const ajv = ajvFor(
    draftOf(rec),
    String(rec.$schema).startsWith(DRAFT_06),
    hasId(rec),
    prevalidated,
  );
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(rec as AnySchema);
  } catch (e) {
    const hint = explainCompileFailure(e, ajv.errors, rec, re2Compiles);
    forget(ajv, rec);
    const reason = e instanceof Error ? e.message.split("\n")[0].slice(0, 300) : "unknown error";
    throw new SchemaCompileError(`the schema does not compile: ${reason}`, hint);
  }
  if ((validate as { $async?: unknown }).$async) {
    // An async validator answers with a Promise, which admission would read as "valid".
    throw new SchemaCompileError("`$async` schemas are not supported");
  }
  const knownKeys = new Set<string>();
  collectKeys(rec, knownKeys);
  return { schema: rec, validate, knownKeys };
}

/**
 * Drop `schema` from `ajv`'s cache after its compile failed: ajv caches a schema object
 * before checking it against the meta-schema, so a second compile of the same object would
 * skip that check and return a validator for a schema that was refused (e.g. `multipleOf: 0`).
 */
function forget(ajv: AjvInstance, schema: Record<string, unknown>): void {
  try {
    ajv.removeSchema(schema as AnySchema);
  } catch {
    // Nothing cached under it.
  }
}

/** How deep the meta-schema fast path looks before leaving a schema to ajv. */
const MAX_FAST_META_DEPTH = 32;

/** The formats schemas may name: the ones `addFormats` gives every instance. */
const KNOWN_FORMATS: ReadonlySet<string> = new Set(Object.keys(FULL_FORMATS));

/** The `regex` format check the meta-schema applies to `pattern` (ajv-formats'). */
function regexFormat(): ((s: string) => boolean) | undefined {
  const f = FULL_FORMATS.regex;
  if (typeof f === "function") return f as (s: string) => boolean;
  const v = (f as { validate?: unknown } | undefined)?.validate;
  return typeof v === "function" ? (v as (s: string) => boolean) : undefined;
}

/**
 * Throw when a schema names a `format` ajv does not know. ajv ignores those (as JSON Schema
 * allows), which in a manifest would let a typo drop a check silently; declarations are
 * held to this, third-party (extension) schemas are not.
 *
 * @example
 * ```ts
 * import { checkFormatsKnown } from "./compile_schema.ts";
 * checkFormatsKnown({ type: "object", properties: { d: { type: "string", format: "date" } } });
 * ```
 */
export function checkFormatsKnown(node: unknown): void {
  checkFormatsIn(node, KNOWN_FORMATS);
}

function checkFormatsIn(node: unknown, known: ReadonlySet<string>): void {
  if (typeof node !== "object" || node === null) return;
  if (Array.isArray(node)) {
    for (const v of node) checkFormatsIn(v, known);
    return;
  }
  for (const [k, v] of Object.entries(node)) {
    if (k === "format" && typeof v === "string" && !known.has(v)) {
      throw new SchemaCompileError(
        `\`format\` names an unknown format (${JSON.stringify(v.slice(0, 64))}); ` +
          "known: date, time, date-time, duration, uri, url, email, hostname, ipv4, ipv6, uuid, …",
      );
    }
    if (k !== "const" && k !== "enum" && k !== "default" && k !== "examples") {
      checkFormatsIn(v, known);
    }
  }
}

function checkRefsAreLocal(node: unknown, depth = 0): void {
  if (depth > 256 || typeof node !== "object" || node === null) return;
  if (Array.isArray(node)) {
    for (const v of node) checkRefsAreLocal(v, depth + 1);
    return;
  }
  for (const [k, v] of Object.entries(node)) {
    if ((k === "$ref" || k === "$dynamicRef" || k === "$recursiveRef") && typeof v === "string") {
      if (!v.startsWith("#")) {
        throw new SchemaCompileError(
          `\`${k}\` must be local (start with "#"); file and HTTP references are not resolved`,
        );
      }
    } else checkRefsAreLocal(v, depth + 1);
  }
}
