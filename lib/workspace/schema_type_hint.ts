/**
 * A hint for an input schema that does not compile because a `type` names no JSON Schema
 * type (`strng`, `str`, `int`): the key path of that `type` and a did-you-mean, in place
 * of ajv's "must be equal to one of the allowed values, must be array, ...". Consulted only
 * after the schema failed to compile, so it never decides what loads.
 *
 * @module
 */

import { isTable, suggest } from "./problems.ts";

/** The JSON Schema type names. */
const TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"];

/** Keys whose value is a subschema, or a table or list of subschemas. */
const ONE = ["items", "additionalProperties", "not", "contains", "propertyNames"];
const MANY = ["properties", "patternProperties", "definitions", "$defs"];
const LISTS = ["anyOf", "oneOf", "allOf", "items"];

/** Walk at most this many subschemas (a manifest is bounded; this bounds the walk too). */
const MAX_NODES = 10_000;

/** Where a bad `type` is (dotted, below `input_schema`) and what to say about it. */
export interface SchemaTypeHint {
  /** Key path below `input_schema`, ending in `type`, e.g. `properties.text.type`. */
  keyPath: string;
  /** The message. */
  message: string;
}

/**
 * The first `type` in `schema` that names no JSON Schema type, with a did-you-mean; or
 * undefined when every `type` is valid (the compile error is about something else).
 *
 * @example
 * ```ts
 * import { schemaTypeHint } from "./schema_type_hint.ts";
 * schemaTypeHint({ type: "object", properties: { a: { type: "strng" } } });
 * // { keyPath: "properties.a.type", message: "`strng` is not a JSON Schema type (did you mean `string`?); ..." }
 * ```
 */
export function schemaTypeHint(schema: unknown): SchemaTypeHint | undefined {
  const queue: [unknown, string][] = [[schema, ""]];
  for (let n = 0; n < queue.length && n < MAX_NODES; n++) {
    const [node, at] = queue[n];
    if (!isTable(node)) continue;
    const bad = badType(node.type);
    if (bad !== undefined) {
      const hint = suggest(bad, TYPES);
      return {
        keyPath: `${at}type`,
        message: `\`${bad}\` is not a JSON Schema type${
          hint === undefined ? "" : ` (did you mean \`${hint}\`?)`
        }; the types are ${TYPES.join(", ")}`,
      };
    }
    for (const k of ONE) if (isTable(node[k])) queue.push([node[k], `${at}${k}.`]);
    for (const k of MANY) {
      const sub = node[k];
      if (isTable(sub)) {
        for (const [name, s] of Object.entries(sub)) queue.push([s, `${at}${k}.${name}.`]);
      }
    }
    for (const k of LISTS) {
      const list = node[k];
      if (Array.isArray(list)) list.forEach((s, i) => queue.push([s, `${at}${k}[${i}].`]));
    }
  }
  return undefined;
}

function badType(t: unknown): string | undefined {
  const names = typeof t === "string" ? [t] : Array.isArray(t) ? t : [];
  return names.find((x): x is string => typeof x === "string" && !TYPES.includes(x));
}
