/**
 * A fast path for meta-schema validation: a hand-written check that a draft 2020-12
 * schema uses only common keywords (object properties, types, bounds, enums, annotations)
 * in ways the 2020-12 meta-schema allows. When it answers `true` the schema is valid
 * against the meta-schema, so ajv need not compile its meta-schema validator (tens of
 * milliseconds at every start); when it answers `false` the schema may still be valid,
 * and the caller validates it the full way. It never accepts what the meta-schema refuses.
 *
 * @module
 */

const SIMPLE_TYPES = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);

type Check = (v: unknown) => boolean;

const isString: Check = (v) => typeof v === "string";
const isBoolean: Check = (v) => typeof v === "boolean";
const isNumber: Check = (v) => typeof v === "number" && Number.isFinite(v);
const isAny: Check = () => true;
const isNonNegativeInteger: Check = (v) => isNumber(v) && Number.isInteger(v) && (v as number) >= 0;
const isPositiveNumber: Check = (v) => isNumber(v) && (v as number) > 0;
const isArray: Check = (v) => Array.isArray(v);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Pairwise distinct strings (the meta-schema's `uniqueItems` on a string array). */
function isUniqueStrings(v: unknown): boolean {
  return Array.isArray(v) && v.every(isString) && new Set(v).size === v.length;
}

function isType(v: unknown): boolean {
  if (typeof v === "string") return SIMPLE_TYPES.has(v);
  return Array.isArray(v) && v.length > 0 && v.every((t) => SIMPLE_TYPES.has(t as string)) &&
    new Set(v).size === v.length;
}

/** Keywords whose value is a single schema. */
export const SUBSCHEMA: ReadonlySet<string> = new Set([
  "additionalProperties",
  "items",
  "not",
  "propertyNames",
  "contains",
]);
/** Keywords whose value is an object of schemas. */
export const SCHEMA_MAP: ReadonlySet<string> = new Set(["properties"]);
/** Keywords whose value is a non-empty array of schemas. */
export const SCHEMA_LIST: ReadonlySet<string> = new Set(["allOf", "anyOf", "oneOf"]);

/** Keywords with a plain value and what the 2020-12 meta-schema requires of it. */
const VALUES: Record<string, Check> = {
  type: isType,
  required: isUniqueStrings,
  enum: isArray,
  const: isAny,
  minLength: isNonNegativeInteger,
  maxLength: isNonNegativeInteger,
  minItems: isNonNegativeInteger,
  maxItems: isNonNegativeInteger,
  minProperties: isNonNegativeInteger,
  maxProperties: isNonNegativeInteger,
  minContains: isNonNegativeInteger,
  maxContains: isNonNegativeInteger,
  uniqueItems: isBoolean,
  minimum: isNumber,
  maximum: isNumber,
  exclusiveMinimum: isNumber,
  exclusiveMaximum: isNumber,
  multipleOf: isPositiveNumber,
  title: isString,
  description: isString,
  default: isAny,
  examples: isArray,
  deprecated: isBoolean,
  readOnly: isBoolean,
  writeOnly: isBoolean,
  format: isString,
};

/**
 * Whether `schema` is certainly valid against the JSON Schema 2020-12 meta-schema, judged
 * without ajv: only the keywords above, with values the meta-schema accepts, nested at most
 * `maxDepth` levels. `false` means "not decided here", not "invalid". `pattern` is taken
 * only when `isRegex` is given: the meta-schema's `format: "regex"` check, as the ajv that
 * would otherwise validate the schema applies it (ajv-formats' `regex`).
 *
 * @example
 * ```ts
 * import { simpleSchemaValid } from "./simple_meta.ts";
 * simpleSchemaValid({ type: "object", properties: { q: { type: "string", minLength: 1 } } }); // true
 * simpleSchemaValid({ type: "object", properties: { q: { minLength: -1 } } }); // false
 * ```
 */
export function simpleSchemaValid(
  schema: unknown,
  maxDepth = 32,
  isRegex?: (s: string) => boolean,
): boolean {
  if (typeof schema === "boolean") return true;
  if (!isObject(schema) || maxDepth <= 0) return false;
  for (const [key, value] of Object.entries(schema)) {
    if (SUBSCHEMA.has(key)) {
      if (!simpleSchemaValid(value, maxDepth - 1, isRegex)) return false;
    } else if (SCHEMA_MAP.has(key)) {
      if (!isObject(value)) return false;
      for (const sub of Object.values(value)) {
        if (!simpleSchemaValid(sub, maxDepth - 1, isRegex)) return false;
      }
    } else if (SCHEMA_LIST.has(key)) {
      if (!Array.isArray(value) || value.length === 0) return false;
      if (!value.every((sub) => simpleSchemaValid(sub, maxDepth - 1, isRegex))) return false;
    } else if (key === "pattern") {
      if (!isRegex || typeof value !== "string" || !isRegex(value)) return false;
    } else {
      const check = Object.hasOwn(VALUES, key) ? VALUES[key] : undefined;
      if (!check || !check(value)) return false;
    }
  }
  return true;
}
