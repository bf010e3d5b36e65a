/**
 * check_schema.ts leaves a declared schema's compile to its first call when compiling it
 * provably cannot fail. These tests hold that to ajv on generated schemas: `checkSchema`
 * refuses exactly what `compileSchema` refuses, with the same message; every schema it
 * defers compiles (here, and on a full ajv instance with its meta-schema, as before the
 * fast path existed); and the cases ajv refuses in a meta-valid schema are never deferred.
 */

import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { checkSchema, compileDeferrable, DEFER_MAX_BYTES } from "../../lib/schema/check_schema.ts";
import {
  compileSchema,
  precheckSchema,
  SchemaCompileError,
} from "../../lib/schema/compile_schema.ts";

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

/** Valid in RE2, refused by RE2 but valid JS (lookaround, backreference), invalid JS. */
const PATTERNS = ["^[a-z]+$", "\\d{3}", "^/[A-Za-z0-9/_-]*$", "(?=a)b", "(a)\\1", "(?<!x)y", "("];
const KEYS = [
  "type",
  "minLength",
  "maximum",
  "multipleOf",
  "enum",
  "const",
  "format",
  "pattern",
  "items",
  "properties",
  "required",
  "additionalProperties",
  "anyOf",
  "oneOf",
  "not",
  "contains",
  "minContains",
  "$ref",
  "$schema",
  "uniqueItems",
  "description",
  "unknownKeyword",
];

function genSub(r: () => number, depth: number): unknown {
  if (r() < 0.08) return r() < 0.5;
  const s: Record<string, unknown> = {};
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) {
    const k = pick(r, KEYS);
    s[k] = genValue(r, k, depth);
  }
  return s;
}

function genValue(r: () => number, k: string, depth: number): unknown {
  const sub = () => depth > 0 ? genSub(r, depth - 1) : r() < 0.5;
  switch (k) {
    case "type":
      return pick(r, ["string", "integer", "object", "array", ["string", "null"], "nope"]);
    case "format":
      return pick(r, ["date", "email", "uri", "regex"]);
    case "pattern":
      return pick(r, PATTERNS);
    case "enum":
      return pick(r, [[], ["a"], [1, "b", null], "a"]);
    case "$ref":
      return pick(r, ["#", "#/properties/a", "#/$defs/nope", "other.json"]);
    case "$schema":
      return pick(r, ["https://json-schema.org/draft/2020-12/schema", "no-such-draft"]);
    case "required":
      return pick(r, [["a"], ["a", "a"], [], [1]]);
    case "items":
    case "not":
    case "contains":
    case "additionalProperties":
      return sub();
    case "properties":
      return depth > 0 ? { a: sub(), b: sub() } : pick(r, [{}, []]);
    case "anyOf":
    case "oneOf":
      return depth > 0 ? pick(r, [[sub(), sub()], []]) : [true];
    case "minLength":
    case "minContains":
      return pick(r, [0, 2, -1, 1.5]);
    case "maximum":
      return pick(r, [3, "3"]);
    case "multipleOf":
      return pick(r, [1, 0.5, 0, -2]);
    case "uniqueItems":
      return pick(r, [true, "yes"]);
    case "description":
      return pick(r, ["d", 4]);
    default:
      return pick(r, [0, "x", null, [], {}]);
  }
}

function genRoot(r: () => number): unknown {
  const root = genSub(r, 3);
  if (typeof root !== "object" || root === null || r() < 0.03) return root;
  const s = root as Record<string, unknown>;
  if (r() < 0.95) s.type = "object";
  return s;
}

/** The outcome of `f` on a fresh copy of `schema` (compiled schemas are cached per object). */
function outcome(f: (s: unknown) => unknown, schema: unknown): string {
  try {
    f(structuredClone(schema));
    return "ok";
  } catch (e) {
    assert.ok(e instanceof SchemaCompileError, String(e));
    return e.message;
  }
}

/** A full 2020-12 instance that validates schemas against its meta-schema. */
function fullInstance(): Ajv2020 {
  return new Ajv2020({ strict: false, allErrors: true, ownProperties: true, logger: false });
}

Deno.test("checkSchema refuses exactly what compileSchema refuses; deferred schemas compile", () => {
  const full = fullInstance();
  const r = rng(1919);
  const counts = { deferred: 0, compiledOk: 0, refused: 0 };
  for (let i = 0; i < 2500; i++) {
    const schema = genRoot(r);
    const got = outcome(checkSchema, schema);
    const want = outcome(compileSchema, schema);
    assert.equal(got, want, JSON.stringify(schema));
    if (want !== "ok") {
      counts.refused++;
      continue;
    }
    const rec = structuredClone(schema) as Record<string, unknown>;
    if (!compileDeferrable(rec, precheckSchema(rec))) {
      counts.compiledOk++;
      continue;
    }
    counts.deferred++;
    // Valid against the meta-schema by ajv's own validator, and compiles there too.
    assert.equal(full.validateSchema(rec), true, JSON.stringify(rec));
    const clean = structuredClone(rec);
    assert.doesNotThrow(() => full.compile(clean), JSON.stringify(rec));
    full.removeSchema(clean);
  }
  // Every side is exercised, or the test could not fail.
  assert.ok(counts.deferred > 200, JSON.stringify(counts));
  assert.ok(counts.compiledOk > 50, JSON.stringify(counts));
  assert.ok(counts.refused > 200, JSON.stringify(counts));
});

Deno.test("what ajv refuses in a meta-valid schema is compiled at load, never deferred", () => {
  const cases: Record<string, unknown>[] = [
    { type: "object", properties: { a: { enum: [] } } },
    { type: "object", properties: { a: { type: "string", pattern: "(?=a)b" } } },
    { type: "object", properties: { a: { items: { pattern: "(a)\\1" } } } },
  ];
  for (const schema of cases) {
    assert.equal(compileDeferrable(schema, precheckSchema(schema)), false, JSON.stringify(schema));
    assert.throws(() => checkSchema(schema), SchemaCompileError, JSON.stringify(schema));
  }
});

Deno.test("a schema over the size bound is compiled at load", () => {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 2000; i++) {
    properties[`p${i}`] = { type: "string", description: "x".repeat(40) };
  }
  const big = { type: "object", properties };
  const size = precheckSchema(big);
  assert.ok(size > DEFER_MAX_BYTES);
  assert.equal(compileDeferrable(big, size), false);
  checkSchema(big); // compiles, and is valid
  const small = { type: "object", properties: { q: { type: "string", pattern: "^a" } } };
  assert.equal(compileDeferrable(small, precheckSchema(small)), true);
});
