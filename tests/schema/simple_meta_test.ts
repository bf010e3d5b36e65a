/**
 * The meta-schema fast path never accepts a schema ajv's 2020-12 meta-schema validator
 * refuses (differential, on generated schemas full of near-miss values), and does accept
 * the common shapes it exists for.
 */

import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { simpleSchemaValid } from "../../lib/schema/simple_meta.ts";
import { compileSchema, SchemaCompileError } from "../../lib/schema/compile_schema.ts";

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// deno-lint-ignore no-explicit-any
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (a: unknown) => void;

const VALUES: unknown[] = [
  "^a",
  "(",
  "[a-",
  "a\\Z",
  "\\Z",
  "\\p{L}",
  "(?<n>x)",
  0,
  1,
  2.5,
  -1,
  -0.5,
  1e300,
  Number.NaN,
  Infinity,
  "",
  "x",
  "string",
  "object",
  "integer",
  "nope",
  true,
  false,
  null,
  [],
  ["a"],
  ["a", "a"],
  ["string", "null"],
  ["string", "string"],
  [1],
  {},
  { a: 1 },
  [true],
];
const KEYS = [
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "uniqueItems",
  "title",
  "description",
  "default",
  "examples",
  "format",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "propertyNames",
  "contains",
  "minContains",
  "maxContains",
  "minProperties",
  "maxProperties",
  "deprecated",
  "readOnly",
  "writeOnly",
  "pattern",
  "$ref",
  "$defs",
  "unknownKeyword",
];

function genSchema(r: () => number, depth: number): unknown {
  if (r() < 0.08) return r() < 0.5;
  const s: Record<string, unknown> = {};
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const key = KEYS[Math.floor(r() * KEYS.length)];
    s[key] = genValue(r, key, depth);
  }
  return s;
}

function genValue(r: () => number, key: string, depth: number): unknown {
  const sub = depth > 0 && r() < 0.7;
  if (sub && ["items", "not", "additionalProperties", "propertyNames", "contains"].includes(key)) {
    return genSchema(r, depth - 1);
  }
  if (sub && key === "properties") {
    return { a: genSchema(r, depth - 1), b: genSchema(r, depth - 1) };
  }
  if (sub && ["allOf", "anyOf", "oneOf"].includes(key)) {
    return r() < 0.1 ? [] : [genSchema(r, depth - 1), genSchema(r, depth - 1)];
  }
  return VALUES[Math.floor(r() * VALUES.length)];
}

Deno.test("the fast path accepts nothing the 2020-12 meta-schema refuses", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv); // as compile_schema's: the meta-schema's `format: "regex"` is checked
  const formats = (ajv as unknown as { formats: Record<string, (s: string) => boolean> }).formats;
  const r = rng(19);
  let accepted = 0;
  let refusedByAjv = 0;
  for (let i = 0; i < 20_000; i++) {
    const schema = genSchema(r, 3);
    const metaValid = ajv.validateSchema(schema as object) === true;
    if (!metaValid) refusedByAjv++;
    if (simpleSchemaValid(schema, 32, formats.regex)) {
      accepted++;
      assert.ok(metaValid, `accepted, but ajv refuses: ${JSON.stringify(schema)}`);
    }
  }
  // The generator exercises both sides (otherwise the test could not fail).
  assert.ok(accepted > 1000, `only ${accepted} schemas took the fast path`);
  assert.ok(refusedByAjv > 1000, `only ${refusedByAjv} generated schemas were invalid`);
});

Deno.test("the fast path takes the common tool schemas", () => {
  for (
    const schema of [
      { type: "object", additionalProperties: false },
      {
        type: "object",
        properties: { file: { type: "string", minLength: 1, maxLength: 256 } },
        required: ["file"],
        additionalProperties: false,
      },
      {
        type: "object",
        properties: {
          n: { type: ["integer", "null"], minimum: 0, maximum: 10, default: 1 },
          mode: { enum: ["a", "b"], description: "the mode" },
          path: { type: "string", pattern: "^/[A-Za-z0-9/_-]*$" },
          tags: { type: "array", items: { type: "string" }, uniqueItems: true, maxItems: 8 },
        },
      },
    ]
  ) assert.ok(simpleSchemaValid(schema, 32, (p) => p.length > 0), JSON.stringify(schema));
});

Deno.test("what the fast path declines is still validated in full", () => {
  for (
    const bad of [
      { type: "object", properties: { n: { minLength: -1 } } },
      { type: "object", required: ["a", "a"] },
      { type: "object", properties: { n: { type: "text" } } },
      { type: "object", properties: { n: { multipleOf: 0 } } },
      { type: "object", anyOf: [] },
      { type: "object", properties: { p: { type: "string", pattern: "(" } } },
    ]
  ) {
    assert.equal(simpleSchemaValid(bad), false, JSON.stringify(bad));
    assert.throws(() => compileSchema(bad), SchemaCompileError, JSON.stringify(bad));
  }
});
