/**
 * What to tell an author whose input schema does not compile: the key inside the schema
 * (a TOML-style path such as `properties.q.minLength`) and the rule it breaks, in words,
 * instead of ajv's own text ("schema is invalid: data/properties/q/minLength must be >= 0",
 * repeated once per branch of the meta-schema). Only schema keys, keyword names and figures
 * from the JSON Schema meta-schema are named; never a value the author wrote (a pattern, a
 * `$ref`, a default).
 *
 * @module
 */

import type { ErrorObject } from "ajv";

/** Where in a schema it fails to compile, and why. */
export interface SchemaHint {
  /** TOML-style key path inside the schema (`properties.q.minLength`; `""` for the root). */
  keyPath: string;
  /** What is wrong there, as a rule: "must be an integer", "must list at least one value". */
  rule: string;
}

/** Combinators whose errors repeat the specific ones found inside them. */
const COMBINATORS = new Set(["anyOf", "oneOf", "allOf", "if", "then", "else", "not"]);
/** Most characters of one key path segment shown. */
const MAX_SEGMENT = 60;

const TYPE_WORDS: Record<string, string> = {
  integer: "an integer",
  number: "a number",
  string: "a string",
  array: "an array",
  object: "a table",
  boolean: "true or false",
  null: "null",
};

function typeWords(t: unknown): string {
  const names = String(t).split(",");
  if (names.length === 2 && names.includes("object") && names.includes("boolean")) {
    return 'a schema (a table such as `{ type = "string" }`, or true / false)';
  }
  return names.map((n) => TYPE_WORDS[n] ?? "of another type").join(" or ");
}

function segment(s: string, parentIsArray: boolean): string {
  if (parentIsArray && /^[0-9]+$/.test(s)) return `[${s}]`;
  const cut = s.length > MAX_SEGMENT ? `${s.slice(0, MAX_SEGMENT)}…` : s;
  const key = /^[A-Za-z0-9_-]+$/.test(cut) ? cut : JSON.stringify(cut);
  return `.${key}`;
}

/**
 * The TOML-style path of a JSON pointer into `schema`. A key of `patternProperties` is a
 * pattern the author wrote: it is named by its place among them (`patternProperties[1]`,
 * from 1), never shown.
 */
function keyPathOf(schema: unknown, pointer: readonly string[]): string {
  let node = schema;
  let out = "";
  let previous: string | undefined;
  for (const s of pointer) {
    const patterns = previous === "patternProperties" && typeof node === "object" &&
      node !== null && !Array.isArray(node);
    out += patterns
      ? `[${Object.keys(node as object).indexOf(s) + 1}]`
      : segment(s, Array.isArray(node));
    previous = s;
    node = typeof node === "object" && node !== null
      ? (node as Record<string, unknown>)[s]
      : undefined;
  }
  return out.replace(/^\./, "");
}

function pointerOf(instancePath: string): string[] {
  if (instancePath === "") return [];
  return instancePath.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function limitWords(p: Record<string, unknown>): string {
  const words: Record<string, string> = {
    ">=": "at least",
    ">": "greater than",
    "<=": "at most",
    "<": "less than",
  };
  return `${words[String(p.comparison)] ?? String(p.comparison)} ${Number(p.limit)}`;
}

/** One meta-schema error as a rule, from its keyword and the meta-schema's parameters. */
function ruleOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "type":
      return `must be ${typeWords(p.type)}`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `must be ${limitWords(p)}`;
    case "minItems":
      return `must list at least ${Number(p.limit)} item(s)`;
    case "uniqueItems":
      return "must not list the same item twice";
    case "format":
      return p.format === "regex"
        ? "must be a valid regular expression"
        : `must be a valid ${String(p.format)}`;
    case "enum":
      return `must be one of ${
        (p.allowedValues as unknown[]).map((v) => JSON.stringify(v))
          .join(", ")
      }`;
    case "required":
      return `must have the key \`${String(p.missingProperty)}\``;
    default:
      return `breaks the JSON Schema rule \`${e.keyword}\``;
  }
}

/**
 * The most specific of ajv's meta-schema errors, as a hint; `more` counts the other
 * distinct ones.
 */
function fromMetaErrors(errors: readonly ErrorObject[], schema: unknown): SchemaHint | undefined {
  const specific = errors.filter((e) => !COMBINATORS.has(e.keyword));
  const pool = specific.length > 0 ? specific : errors;
  const distinct = new Map<string, ErrorObject>();
  for (const e of pool) {
    distinct.set(`${e.instancePath}\0${e.keyword}\0${JSON.stringify(e.params)}`, e);
  }
  const ranked = [...distinct.values()].sort((a, b) =>
    pointerOf(b.instancePath).length - pointerOf(a.instancePath).length
  );
  const best = ranked[0];
  if (best === undefined) return undefined;
  const more = ranked.length - 1;
  return {
    keyPath: keyPathOf(schema, pointerOf(best.instancePath)),
    rule: ruleOf(best) + (more > 0 ? ` (and ${more} more problem(s) in this schema)` : ""),
  };
}

/** The first place (breadth first, bounded) where `bad(key, value)` holds. */
function findKey(
  schema: unknown,
  bad: (key: string, value: unknown) => boolean,
): string[] | undefined {
  const queue: [unknown, string[]][] = [[schema, []]];
  for (let n = 0; n < queue.length && n < 10_000; n++) {
    const [node, at] = queue[n];
    if (typeof node !== "object" || node === null) continue;
    for (const [k, v] of Object.entries(node)) {
      const here = [...at, k];
      if (!Array.isArray(node) && bad(k, v)) return here;
      queue.push([v, here]);
    }
  }
  return undefined;
}

/**
 * Why compiling `schema` failed, as a key path and a rule, when the failure is one this
 * knows: a meta-schema violation (`ajvErrors`, ajv's errors after "schema is invalid"), an
 * empty `enum`, a `$ref` that resolves to nothing, or a pattern outside RE2's syntax
 * (`re2Compiles`). Undefined otherwise.
 *
 * @example
 * ```ts
 * import { explainCompileFailure } from "./compile_hint.ts";
 * const schema = { type: "object", properties: { e: { enum: [] } } };
 * explainCompileFailure(new Error("enum must have non-empty array"), undefined, schema, () => true);
 * // { keyPath: "properties.e.enum", rule: "must list at least one value" }
 * ```
 */
export function explainCompileFailure(
  error: unknown,
  ajvErrors: readonly ErrorObject[] | null | undefined,
  schema: unknown,
  re2Compiles: (pattern: string) => boolean,
): SchemaHint | undefined {
  const message = error instanceof Error ? error.message : "";
  if (message.startsWith("schema is invalid") && ajvErrors && ajvErrors.length > 0) {
    return fromMetaErrors(ajvErrors, schema);
  }
  const at = (path: string[] | undefined, rule: string) =>
    path === undefined ? undefined : { keyPath: keyPathOf(schema, path), rule };
  if (message.startsWith("enum must have non-empty array")) {
    return at(
      findKey(schema, (k, v) => k === "enum" && Array.isArray(v) && v.length === 0),
      "must list at least one value",
    );
  }
  if (typeof error === "object" && error !== null && "missingRef" in error) {
    return at(
      findKey(schema, (k, v) => k === "$ref" && typeof v === "string" && !resolves(schema, v)),
      "names nothing in this schema: only local references such as `#/$defs/NAME` resolve",
    );
  }
  const regex = "is not a regular expression toolhost can run: patterns use RE2 syntax " +
    "(no lookaround, no backreferences)";
  const pattern = findKey(
    schema,
    (k, v) => k === "pattern" && typeof v === "string" && !re2Compiles(v),
  );
  if (pattern !== undefined) return at(pattern, regex);
  const props = findKey(
    schema,
    (k, v) =>
      k === "patternProperties" && typeof v === "object" && v !== null &&
      Object.keys(v).some((p) => !re2Compiles(p)),
  );
  return at(props, `has a key that ${regex}`);
}

/** Whether a local `$ref` (`#`, `#/a/b`) names something in `schema`. */
function resolves(schema: unknown, ref: string): boolean {
  if (!ref.startsWith("#")) return false;
  if (ref === "#") return true;
  if (!ref.startsWith("#/")) return true; // an anchor: left to ajv, not pointed at
  let node = schema;
  for (const raw of ref.slice(2).split("/")) {
    const s = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, s)) return false;
    node = (node as Record<string, unknown>)[s];
  }
  return true;
}
