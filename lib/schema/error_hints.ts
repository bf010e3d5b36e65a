/**
 * What to fix, for one ajv validation error: the missing property's name, the expected
 * type, the violated limit, the allowed values — all taken from the schema (which the
 * model already sees), never from the arguments.
 *
 * @module
 */

import type { ErrorObject } from "ajv";

/** Most enum values or property names listed in one hint. */
const MAX_LISTED = 8;
/** Most UTF-16 code units of one schema-derived value in a hint. */
const MAX_SHOWN = 60;

/** Bounded printable ASCII: every other code unit as `\uXXXX`. */
function ascii(s: string, max: number): string {
  const cut = s.length > max ? `${s.slice(0, max)}...` : s;
  return cut.replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Escape a schema-derived string to bounded printable ASCII. */
function show(s: string, max = MAX_SHOWN): string {
  return ascii(JSON.stringify(s).slice(1, -1), max);
}

/** A schema value (enum member, const) as bounded JSON text. */
function showJson(v: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(v) ?? "null";
  } catch {
    text = "?";
  }
  return ascii(text, MAX_SHOWN);
}

function list(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).join(", ");
  return items.length > MAX_LISTED ? `${shown}, ... (${items.length} in all)` : shown;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The JSON value at a `#/a/b` schema pointer, or undefined. */
function atPointer(root: unknown, pointer: string): unknown {
  if (!pointer.startsWith("#")) return undefined;
  let node = root;
  for (const raw of pointer.slice(1).split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, seg)) return undefined;
    node = (node as Record<string, unknown>)[seg];
  }
  return node;
}

/** The property names the schema object owning `keywordPath` declares. */
function declaredProperties(schema: unknown, keywordPath: string): string[] {
  const owner = atPointer(schema, keywordPath.slice(0, keywordPath.lastIndexOf("/")));
  if (typeof owner !== "object" || owner === null) return [];
  const props = (owner as Record<string, unknown>).properties;
  if (typeof props !== "object" || props === null || Array.isArray(props)) return [];
  return Object.keys(props).map((k) => `\`${show(k)}\``);
}

type Params = Record<string, unknown>;

const LIMIT_HINTS: Record<string, (n: number) => string> = {
  minLength: (n) => `must be at least ${plural(n, "character")} long`,
  maxLength: (n) => `must be at most ${plural(n, "character")} long`,
  minItems: (n) => `must have at least ${plural(n, "item")}`,
  maxItems: (n) => `must have at most ${plural(n, "item")}`,
  minProperties: (n) => `must have at least ${plural(n, "property", "properties")}`,
  maxProperties: (n) => `must have at most ${plural(n, "property", "properties")}`,
  multipleOf: (n) => `must be a multiple of ${n}`,
};

const FIXED_HINTS: Record<string, string> = {
  oneOf: "must match exactly one of the schema's `oneOf` alternatives",
  anyOf: "must match at least one of the schema's `anyOf` alternatives",
  not: "must not match the schema under `not`",
  if: "must match the schema's `then`/`else` branch",
  propertyNames: "a property name breaks the schema's `propertyNames` rule",
  "false schema": "is not allowed here by the schema",
};

/**
 * The fix for one validation error, in words, or undefined when there is nothing to add
 * to the keyword. Never contains argument values (nor unexpected property names).
 *
 * @example
 * ```ts
 * import { errorHint } from "./error_hints.ts";
 * const e = {
 *   keyword: "minLength", instancePath: "/text", schemaPath: "#/properties/text/minLength",
 *   params: { limit: 1 },
 * };
 * errorHint(e, {}); // "must be at least 1 character long (minLength 1)"
 * ```
 */
export function errorHint(e: ErrorObject, schema: unknown): string | undefined {
  const p = e.params as Params;
  const k = e.keyword;
  if (k in LIMIT_HINTS && typeof p.limit === "number") {
    return `${LIMIT_HINTS[k](p.limit)} (${k} ${p.limit})`;
  }
  if (k === "multipleOf" && typeof p.multipleOf === "number") {
    return `${LIMIT_HINTS.multipleOf(p.multipleOf)} (multipleOf ${p.multipleOf})`;
  }
  if (FIXED_HINTS[k] !== undefined) return FIXED_HINTS[k];
  switch (k) {
    case "required":
      return `add the required property \`${show(String(p.missingProperty))}\``;
    case "dependentRequired":
    case "dependencies":
      return `add the property \`${show(String(p.missingProperty))}\`, required when \`${
        show(String(p.property))
      }\` is given`;
    case "type": {
      const t = Array.isArray(p.type) ? p.type.join(" or ") : String(p.type);
      return `must be ${/^[aeiou]/.test(t) ? "an" : "a"} ${show(t)}`;
    }
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `must be ${show(String(p.comparison))} ${show(String(p.limit))} (${k} ${
        show(String(p.limit))
      })`;
    case "enum": {
      const values = Array.isArray(p.allowedValues) ? p.allowedValues : [];
      return `must be one of ${list(values.map(showJson))}`;
    }
    case "const":
      return `must be exactly ${showJson(p.allowedValue)}`;
    case "pattern":
      return `must match the pattern \`${show(String(p.pattern), 120)}\``;
    case "format":
      return `must be a valid \`${show(String(p.format))}\``;
    case "uniqueItems":
      return `items must be unique (items ${Number(p.j)} and ${Number(p.i)} are equal)`;
    case "contains":
      return "must contain an item that matches the schema's `contains`";
    case "additionalProperties":
    case "unevaluatedProperties": {
      const allowed = declaredProperties(schema, e.schemaPath);
      return allowed.length > 0
        ? `remove the unexpected property; allowed: ${list(allowed)}`
        : "remove the unexpected property";
    }
    case "additionalItems":
    case "unevaluatedItems":
      return `must have at most ${plural(Number(p.limit), "item")}`;
    default:
      return undefined;
  }
}
