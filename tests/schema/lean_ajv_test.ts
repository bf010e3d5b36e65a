/**
 * compile_schema.ts builds fewer ajv instances at start-up: schemas the meta-schema fast
 * path has already validated are compiled by an instance without the draft's meta-schema
 * (`meta: false`), and the known formats and the `regex` format come from ajv-formats' own
 * table instead of a throw-away instance. These tests hold both to what a full instance
 * does: the same validity and the same errors, object for object, on generated schemas
 * and data; the same formats known, the same unknown-format refusal.
 */

import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { simpleSchemaValid } from "../../lib/schema/simple_meta.ts";
import {
  checkFormatsKnown,
  compileSchema,
  SchemaCompileError,
} from "../../lib/schema/compile_schema.ts";

// deno-lint-ignore no-explicit-any
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (a: unknown) => void;

/** What compile_schema.ts made before: a validating 2020-12 instance with its meta-schema. */
function fullInstance(): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    useDefaults: false,
    coerceTypes: false,
    removeAdditional: false,
    ownProperties: true,
  });
  addFormats(ajv);
  const formats = (ajv as unknown as { formats: Record<string, unknown> }).formats;
  ajv.addFormat("url", formats.uri as (s: string) => boolean);
  return ajv;
}

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// No `pattern`: compile_schema evaluates it with RE2, the reference with JS RegExp.
const VALUES: unknown[] = [0, 1, 2, -1, 2.5, "", "x", "a", "b", "string", "integer", "object"];
const VALUES_MORE: unknown[] = [true, false, null, [], ["a"], ["a", "b"], ["string", "null"], {}];
const REFS = ["#", "#/properties/a", "#/$defs/a", "#/$defs/nope", "#/properties/b/items"];
const FORMATS = ["date", "email", "uri", "url", "ipv4", "uuid", "regex", "date-time"];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

function genSub(r: () => number, depth: number): unknown {
  if (r() < 0.08) return r() < 0.5;
  const s: Record<string, unknown> = {};
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) {
    const k = pick(r, [
      "type",
      "type",
      "minLength",
      "maxLength",
      "minimum",
      "maximum",
      "exclusiveMinimum",
      "multipleOf",
      "enum",
      "const",
      "format",
      "items",
      "properties",
      "required",
      "additionalProperties",
      "anyOf",
      "oneOf",
      "not",
      "$ref",
      "minItems",
      "uniqueItems",
      "unknownKeyword",
    ]);
    s[k] = genValue(r, k, depth);
  }
  return s;
}

function genValue(r: () => number, k: string, depth: number): unknown {
  switch (k) {
    case "type":
      return pick(r, ["string", "integer", "number", "object", "array", "boolean", "null"]);
    case "format":
      return pick(r, FORMATS);
    case "$ref":
      return pick(r, REFS);
    case "enum":
      return [pick(r, VALUES), pick(r, VALUES_MORE)];
    case "required":
      return pick(r, [["a"], ["a", "b"], ["constructor"], []]);
    case "items":
    case "not":
    case "additionalProperties":
      return depth > 0 ? genSub(r, depth - 1) : r() < 0.5;
    case "properties":
      return depth > 0 ? { a: genSub(r, depth - 1), b: genSub(r, depth - 1) } : {};
    case "anyOf":
    case "oneOf":
      return depth > 0 ? [genSub(r, depth - 1), genSub(r, depth - 1)] : [true];
    case "minLength":
    case "maxLength":
    case "minItems":
      return Math.floor(r() * 3);
    case "multipleOf":
      return pick(r, [1, 2, 0.5]);
    case "uniqueItems":
      return r() < 0.5;
    default:
      return pick(r, [...VALUES, ...VALUES_MORE]);
  }
}

function genRoot(r: () => number): Record<string, unknown> {
  const root = genSub(r, 3);
  const s: Record<string, unknown> = typeof root === "object" && root !== null
    ? root as Record<string, unknown>
    : {};
  s.type = "object";
  if (r() < 0.5) s.$defs = { a: genSub(r, 1) };
  return s;
}

function genData(r: () => number, depth: number): unknown {
  const k = Math.floor(r() * 7);
  if (depth <= 0 || k < 4) {
    return pick(r, [
      0,
      1,
      2.5,
      -3,
      "",
      "x",
      "2024-01-02",
      "a@b.co",
      "http://x.y/z",
      "1.2.3.4",
      "not a uri",
      true,
      null,
    ]);
  }
  if (k === 4) return [genData(r, depth - 1), genData(r, depth - 1)];
  return { a: genData(r, depth - 1), b: genData(r, depth - 1), c: genData(r, depth - 1) };
}

Deno.test("fast-path schemas: the lean instance validates exactly as a full one", () => {
  const full = fullInstance();
  const r = rng(1906);
  let compared = 0;
  let invalidData = 0;
  let compileRefusals = 0;
  for (let i = 0; i < 3000; i++) {
    const schema = genRoot(r);
    if (!simpleSchemaValid(schema, 32, (p) => p.length > 0)) continue;
    let lean: ReturnType<typeof compileSchema> | undefined;
    let leanError: string | undefined;
    try {
      lean = compileSchema(schema);
    } catch (e) {
      assert.ok(e instanceof SchemaCompileError);
      leanError = e.message;
    }
    let ref: ReturnType<typeof full.compile> | undefined;
    let refError: string | undefined;
    try {
      ref = full.compile(schema);
    } catch (e) {
      refError = `the schema does not compile: ${String((e as Error).message).split("\n")[0]}`;
    }
    full.removeSchema(schema);
    assert.equal(leanError, refError?.slice(0, leanError?.length), JSON.stringify(schema));
    if (!lean || !ref) {
      compileRefusals++;
      continue;
    }
    for (let j = 0; j < 8; j++) {
      const data = { a: genData(r, 2), b: genData(r, 2) };
      const got: boolean = lean.validate(data) === true;
      const want: boolean = ref(data) === true;
      assert.equal(got, want, `${JSON.stringify(schema)} on ${JSON.stringify(data)}`);
      assert.deepEqual(lean.validate.errors, ref.errors, JSON.stringify(schema));
      if (!want) invalidData++;
      compared++;
    }
  }
  // The generator exercises every side, or the test could not fail.
  assert.ok(compared > 2000, `only ${compared} comparisons`);
  assert.ok(invalidData > 300, `only ${invalidData} invalid data`);
  // (The fast path takes no `$ref`; the rest compile on both sides or on neither.)
  assert.ok(compileRefusals === 0, `${compileRefusals} refused compiles`);
});

Deno.test("known formats: exactly the ones a full instance has", () => {
  const formats = Object.keys(
    (fullInstance() as unknown as { formats: Record<string, unknown> }).formats,
  );
  assert.ok(formats.length > 15 && formats.includes("regex") && formats.includes("url"));
  for (const f of formats) checkFormatsKnown({ type: "object", format: f });
  for (const f of ["nope", "Date", "uri-ref", "constructor", "__proto__", "toString"]) {
    assert.throws(
      () => checkFormatsKnown({ properties: { x: { format: f } } }),
      (e: unknown) =>
        e instanceof SchemaCompileError &&
        e.message.startsWith(`\`format\` names an unknown format (${JSON.stringify(f)}); known:`),
      f,
    );
  }
});

Deno.test("the meta-schema's regex format still refuses an invalid `pattern`", () => {
  assert.throws(
    () => compileSchema({ type: "object", properties: { p: { type: "string", pattern: "(" } } }),
    SchemaCompileError,
  );
});
