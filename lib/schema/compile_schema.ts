/**
 * Compile a tool's input JSON Schema with ajv: draft 2020-12 unless `$schema` names
 * another draft, no file/HTTP `$ref` resolution, defaults never applied, and `pattern`
 * keywords evaluated by a linear-time RE2 engine so an argument cannot stall admission.
 *
 * @module
 */

import { Ajv2020 } from "ajv/dist/2020.js";
import { Ajv2019 } from "ajv/dist/2019.js";
import AjvDraft07Module from "ajv";
import AjvDraft04Module from "ajv-draft-04";
import addFormatsModule from "ajv-formats";
import * as formatsModule from "ajv-formats/dist/formats.js";
import type { AnySchema, ErrorObject, ValidateFunction } from "ajv";
// A static import, so the binaries and the npm build carry it (no require at run time).
import DRAFT_06_META from "ajv/dist/refs/json-schema-draft-06.json" with { type: "json" };
import { RE2JS } from "re2js";
import { LIMITS } from "../results/types.ts";
import { nestingWithin } from "../results/json_depth.ts";
import { simpleSchemaValid } from "./simple_meta.ts";
import { explainCompileFailure, type SchemaHint } from "./compile_hint.ts";

/** A compiled input schema. */
export interface CompiledSchema {
  /** The schema as declared. */
  schema: Record<string, unknown>;
  /** ajv's validate function. */
  validate: ValidateFunction;
  /** Property names appearing anywhere under `properties` (safe to echo in errors). */
  knownKeys: Set<string>;
}

/**
 * Why a schema was rejected; never contains argument values. `hint`, when the failure is
 * one compile_hint.ts knows, says where in the schema and which rule, in words (the
 * message keeps the compiler's text).
 *
 * @example
 * ```ts
 * import { SchemaCompileError } from "./compile_schema.ts";
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

type AjvCtor = new (opts: Record<string, unknown>) => {
  /** The errors of the last validation (a meta-schema check when compile threw). */
  errors?: ErrorObject[] | null;
  compile(s: AnySchema): ValidateFunction;
  addMetaSchema(s: AnySchema): unknown;
  removeSchema(s: AnySchema): unknown;
};

// deno-lint-ignore no-explicit-any
const unwrap = <T>(m: T): T => ((m as any).default ?? m) as T;
const AjvDraft07 = unwrap(AjvDraft07Module) as unknown as AjvCtor;
const AjvDraft04 = unwrap(AjvDraft04Module) as unknown as AjvCtor;
const addFormats = unwrap(addFormatsModule) as unknown as (ajv: unknown) => void;
/** ajv-formats' own table: what `addFormats` adds to every instance (mode "full"). */
const FULL_FORMATS = (unwrap(formatsModule) as unknown as {
  fullFormats: Record<string, unknown>;
}).fullFormats;

/** RE2-backed RegExp engine for ajv's `code.regExp` option (linear-time `pattern`). */
function re2Engine(
  pattern: string,
  flags: string,
): { test(s: string): boolean; toString(): string } {
  const re = RE2JS.compile(pattern, flags.includes("i") ? RE2JS.CASE_INSENSITIVE : 0);
  // ajv caches compiled patterns by `toString()`: it must be unique per pattern.
  return { test: (s: string) => re.matcher(s).find(), toString: () => `re2/${flags}/${pattern}` };
}
re2Engine.code = "re2";

const DRAFT_06 = "http://json-schema.org/draft-06/schema";

const DRAFTS: Record<string, AjvCtor> = {
  "https://json-schema.org/draft/2020-12/schema": Ajv2020 as unknown as AjvCtor,
  "https://json-schema.org/draft/2019-09/schema": Ajv2019 as unknown as AjvCtor,
  "http://json-schema.org/draft-07/schema": AjvDraft07,
  "http://json-schema.org/draft-06/schema": AjvDraft07,
  "http://json-schema.org/draft-04/schema": AjvDraft04,
};

function draftOf(schema: Record<string, unknown>): AjvCtor {
  const id = schema.$schema;
  if (id === undefined) return DRAFTS["https://json-schema.org/draft/2020-12/schema"];
  if (typeof id !== "string") throw new SchemaCompileError("`$schema` must be a string");
  const ctor = DRAFTS[id.replace(/#$/, "")];
  if (!ctor) {
    throw new SchemaCompileError(
      "`$schema` names an unsupported draft; use 2020-12 (default), 2019-09, draft-07, -06 or -04",
    );
  }
  return ctor;
}

/** ajv's default instance bundles no draft-06 meta-schema; add it when a schema asks. */
function addDraft06MetaSchema(ajv: { addMetaSchema(s: AnySchema): unknown }): void {
  ajv.addMetaSchema(DRAFT_06_META as AnySchema);
}

function newAjv(ctor: AjvCtor, draft06: boolean, validateSchema = true) {
  const ajv = new ctor({
    // An instance that never validates schemas never reads its draft's meta-schema, and
    // adding it costs milliseconds per instance: only validating instances carry it. (Every
    // `$ref` is local, so no schema can reach a meta-schema by reference.)
    meta: validateSchema,
    strict: false,
    allErrors: true,
    useDefaults: false,
    coerceTypes: false,
    removeAdditional: false,
    validateSchema,
    loadSchema: undefined,
    // `required: ["constructor"]` must not be met by Object.prototype.
    ownProperties: true,
    code: { regExp: re2Engine },
  });
  if (draft06) addDraft06MetaSchema(ajv);
  addFormats(ajv);
  // ajv-formats' `url` regex backtracks quadratically (a 64 KiB value: ~5 s of admission);
  // `uri`'s check is linear and accepts what `url` means.
  const formats = (ajv as unknown as { formats: Record<string, unknown> }).formats;
  (ajv as unknown as { addFormat(n: string, f: unknown): void }).addFormat("url", formats.uri);
  return ajv;
}

type AjvInstance = ReturnType<typeof newAjv>;

/** One ajv per draft, shared by schemas without `$id` (see {@linkcode ajvFor}). */
const sharedAjv = new Map<AjvCtor, { ajv: AjvInstance; uses: number }>();
/** The same for schemas already known valid against their meta-schema. */
const sharedPrevalidated = new Map<AjvCtor, { ajv: AjvInstance; uses: number }>();

/**
 * Schemas one shared instance compiles before it is replaced: ajv keeps every compiled
 * schema in the instance's scope, so a long-running `serve` whose extensions reconnect
 * must not grow one instance without bound (a replaced one is freed with its validators).
 */
const SHARED_AJV_USES = 256;

/**
 * The ajv instance to compile a schema with. A new instance compiles its meta-schema's
 * validator (tens of milliseconds), so schemas share one per draft. A schema with an id
 * anywhere (`$id`, draft-04's `id`) gets a fresh instance, as does draft-06 (its
 * meta-schema is added per instance): ajv registers ids instance-wide, and two tools
 * declaring the same `$id` must not collide. Anchors and local `$ref`s stay per schema.
 * `prevalidated`: the schema is known valid against its meta-schema (see
 * `simple_meta.ts`), so an instance that skips ajv's own meta-schema validation — and the
 * cost of compiling its validator — compiles it.
 */
function ajvFor(
  ctor: AjvCtor,
  draft06: boolean,
  withId: boolean,
  prevalidated: boolean,
): AjvInstance {
  if (withId || draft06) return newAjv(ctor, draft06, !prevalidated);
  const pool = prevalidated ? sharedPrevalidated : sharedAjv;
  let shared = pool.get(ctor);
  if (!shared || shared.uses >= SHARED_AJV_USES) {
    pool.set(ctor, shared = { ajv: newAjv(ctor, false, !prevalidated), uses: 0 });
  }
  shared.uses++;
  return shared.ajv;
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
