/**
 * The ajv instances input schemas compile with: one class per draft, no file/HTTP `$ref`
 * resolution, defaults never applied, formats from ajv-formats (`url` checked as `uri`),
 * `pattern` by RE2 (linear time); schemas without an id share one instance per draft.
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
import { SchemaCompileError } from "./schema_errors.ts";

/** An ajv class (one per draft). */
export type AjvCtor = new (opts: Record<string, unknown>) => {
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
export const FULL_FORMATS: Record<string, unknown> = (unwrap(formatsModule) as unknown as {
  fullFormats: Record<string, unknown>;
}).fullFormats;

/**
 * RE2-backed RegExp engine for ajv's `code.regExp` option (linear-time `pattern`); also
 * how a pattern is checked to compile.
 *
 * @example
 * ```ts
 * import { re2Engine } from "./ajv_instances.ts";
 * re2Engine("^a+$", "u").test("aaa"); // true
 * ```
 */
export function re2Engine(
  pattern: string,
  flags: string,
): { test(s: string): boolean; toString(): string } {
  const re = RE2JS.compile(pattern, flags.includes("i") ? RE2JS.CASE_INSENSITIVE : 0);
  // ajv caches compiled patterns by `toString()`: it must be unique per pattern.
  return { test: (s: string) => re.matcher(s).find(), toString: () => `re2/${flags}/${pattern}` };
}
re2Engine.code = "re2";

/** The draft-06 meta-schema id (its meta-schema is added per instance). */
export const DRAFT_06 = "http://json-schema.org/draft-06/schema";

const DRAFTS: Record<string, AjvCtor> = {
  "https://json-schema.org/draft/2020-12/schema": Ajv2020 as unknown as AjvCtor,
  "https://json-schema.org/draft/2019-09/schema": Ajv2019 as unknown as AjvCtor,
  "http://json-schema.org/draft-07/schema": AjvDraft07,
  "http://json-schema.org/draft-06/schema": AjvDraft07,
  "http://json-schema.org/draft-04/schema": AjvDraft04,
};

/**
 * The ajv class for a schema's `$schema` (2020-12 when absent); throws
 * {@linkcode SchemaCompileError} for an unsupported draft.
 *
 * @example
 * ```ts
 * import { draftOf } from "./ajv_instances.ts";
 * typeof draftOf({ type: "object" }); // "function"
 * ```
 */
export function draftOf(schema: Record<string, unknown>): AjvCtor {
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

/** An ajv instance as made here. */
export type AjvInstance = ReturnType<typeof newAjv>;

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
 *
 * @example
 * ```ts
 * import { ajvFor, draftOf } from "./ajv_instances.ts";
 * ajvFor(draftOf({}), false, false, false).compile({ type: "object" })({}); // true
 * ```
 */
export function ajvFor(
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
