/**
 * Input schema compilation: root object, drafts, local `$ref` only, composition, 8 MiB.
 */

import assert from "node:assert/strict";
import { compileSchema, SchemaCompileError } from "../../lib/schema/compile_schema.ts";
import { admitArgs } from "../../lib/schema/admit_args.ts";
import {
  BASE_FILES,
  BASE_TOML,
  expectLoads,
  expectProblem,
  JSON_TOOL,
  toolTable,
} from "../helpers/workspace.ts";

const AT = "artifacts.app.views.agent_tools.x.input_schema";
const MiB8 = 8 * 1024 * 1024;

function withSchema(input_schema: unknown): string {
  return BASE_TOML + toolTable("app", "x", { ...JSON_TOOL, input_schema });
}

function rejects(schema: unknown, message: RegExp): void {
  assert.throws(() => compileSchema(schema), (e) => {
    assert.ok(e instanceof SchemaCompileError, String(e));
    assert.match(e.message, message);
    return true;
  });
}

// Seed: "Supplied schemas must have root type: "object""
Deno.test("root type must be object", async () => {
  compileSchema({ type: "object" });
  for (const bad of [{}, { type: "string" }, { type: ["object"] }, { type: ["object", "null"] }]) {
    rejects(bad, /root `type = "object"`/);
  }
  rejects([], /table/);
  await expectProblem(withSchema({ type: "array" }), BASE_FILES, {
    keyPath: AT,
    message: /root `type = "object"`/,
  });
  await expectProblem(withSchema({ properties: {} }), BASE_FILES, { keyPath: AT });
});

// Issue 2: "compiled with ajv (draft 2020-12 by default, the draft named by `$schema`
// otherwise)"
Deno.test("draft 2020-12 by default: prefixItems works", () => {
  const c = compileSchema({
    type: "object",
    properties: { t: { type: "array", prefixItems: [{ type: "string" }], items: false } },
  });
  assert.equal(c.validate({ t: ["a"] }), true);
  assert.equal(c.validate({ t: [1] }), false);
  assert.equal(c.validate({ t: ["a", "b"] }), false);
  // draft-07's array form of `items` is not 2020-12
  rejects({ type: "object", properties: { t: { items: [{ type: "string" }] } } }, /compile/);
});

Deno.test("$schema draft-07 uses draft-07 semantics", () => {
  const base = { $schema: "http://json-schema.org/draft-07/schema#", type: "object" };
  const tuple = compileSchema({
    ...base,
    properties: { t: { type: "array", items: [{ type: "string" }], additionalItems: false } },
  });
  assert.equal(tuple.validate({ t: ["a"] }), true);
  assert.equal(tuple.validate({ t: [1] }), false);
  assert.equal(tuple.validate({ t: ["a", "b"] }), false);
  // prefixItems means nothing in draft-07
  const ignored = compileSchema({
    ...base,
    properties: { t: { type: "array", prefixItems: [{ type: "string" }] } },
  });
  assert.equal(ignored.validate({ t: [1] }), true);
});

Deno.test("other named drafts compile; unknown drafts are rejected", () => {
  for (
    const id of [
      "https://json-schema.org/draft/2020-12/schema",
      "https://json-schema.org/draft/2019-09/schema",
      "http://json-schema.org/draft-06/schema#",
      "http://json-schema.org/draft-04/schema#",
    ]
  ) {
    const c = compileSchema({ $schema: id, type: "object", properties: { a: { type: "string" } } });
    assert.equal(c.validate({ a: 1 }), false, id);
  }
  rejects({ $schema: "http://example.com/my-draft", type: "object" }, /unsupported draft/);
  rejects({ $schema: 7, type: "object" }, /must be a string/);
});

// Seed: "compiled by jsonschema, without its file/HTTP resolution features. Local $ref,
// composition and other standard schema features work"
Deno.test("remote $ref (http, https, file, relative) is rejected", async () => {
  for (
    const ref of ["http://example.com/s.json", "https://x/y#/a", "file:///etc/passwd", "o.json"]
  ) {
    rejects({ type: "object", properties: { a: { $ref: ref } } }, /must be local/);
  }
  rejects({ type: "object", $defs: { x: { $dynamicRef: "http://x/y" } } }, /must be local/);
  await expectProblem(
    withSchema({ type: "object", properties: { a: { $ref: "file:///etc/passwd" } } }),
    BASE_FILES,
    { keyPath: AT, message: /must be local/ },
  );
});

Deno.test("local $ref works", () => {
  const c = compileSchema({
    type: "object",
    $defs: { word: { type: "string", minLength: 1 } },
    properties: { a: { $ref: "#/$defs/word" }, b: { $ref: "#/properties/a" } },
  });
  assert.equal(c.validate({ a: "x", b: "y" }), true);
  assert.equal(c.validate({ a: "" }), false);
  assert.equal(c.validate({ b: 3 }), false);
  rejects({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } }, /compile/);
});

Deno.test("allOf, anyOf, oneOf, not, if/then work", () => {
  const c = compileSchema({
    type: "object",
    properties: {
      all: { allOf: [{ type: "integer" }, { minimum: 2 }] },
      any: { anyOf: [{ type: "string" }, { type: "boolean" }] },
      one: { oneOf: [{ type: "integer" }, { type: "number", minimum: 10 }] },
      none: { not: { type: "null" } },
    },
    if: { required: ["all"] },
    then: { required: ["any"] },
  });
  assert.equal(c.validate({ all: 3, any: "s", one: 1, none: 0 }), true);
  assert.equal(c.validate({ all: 1, any: "s" }), false);
  assert.equal(c.validate({ any: 5 }), false);
  assert.equal(c.validate({ one: 12.5 }), true); // only the second
  assert.equal(c.validate({ one: 12 }), false); // an integer ≥ 10 matches both
  assert.equal(c.validate({ none: null }), false);
  assert.equal(c.validate({ all: 3 }), false); // then: any required
});

Deno.test("formats are known (ajv-formats)", () => {
  const c = compileSchema({
    type: "object",
    properties: { d: { type: "string", format: "date" } },
  });
  assert.equal(c.validate({ d: "2024-01-31" }), true);
  assert.equal(c.validate({ d: "yesterday" }), false);
});

// Seed: "Schema defaults never change arguments."
Deno.test("defaults are never applied", () => {
  const c = compileSchema({
    type: "object",
    properties: { d: { type: "string", default: "z" }, o: { type: "object", default: {} } },
  });
  const args = { keep: undefined };
  const before = JSON.stringify(args);
  const admitted = admitArgs(args, c);
  assert.equal(JSON.stringify(args), before);
  assert.deepEqual(admitted, {});
  assert.ok(!("d" in admitted));
  const nested = { o: { x: 1 } };
  assert.deepEqual(admitArgs(nested, c), { o: { x: 1 } });
});

/** A schema whose compact JSON is exactly `bytes` bytes. */
function schemaOfSize(bytes: number): Record<string, unknown> {
  const overhead = JSON.stringify({ type: "object", description: "" }).length;
  const s = { type: "object", description: "x".repeat(bytes - overhead) };
  assert.equal(JSON.stringify(s).length, bytes);
  return s;
}

// Seed: "Declarations/schemas are capped at 8 MiB."
Deno.test("schema: 8 MiB - 1 and exactly 8 MiB compile, 8 MiB + 1 is rejected", () => {
  compileSchema(schemaOfSize(MiB8 - 1));
  compileSchema(schemaOfSize(MiB8));
  rejects(schemaOfSize(MiB8 + 1), /larger than 8 MiB \(8388609 bytes\)/);
});

Deno.test("a schema declared in the manifest is listed as declared", async () => {
  const schema = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
  const ws = await expectLoads(withSchema(schema));
  const x = ws.artifacts.get("app")!.agentTools.x;
  assert.equal(x.type, "command");
  assert.deepEqual(JSON.parse(JSON.stringify(x.type === "command" && x.inputSchema)), schema);
});

Deno.test("a schema object is compiled once, wherever it is asked for", () => {
  const schema = { type: "object", properties: { q: { type: "string" } } };
  const a = compileSchema(schema);
  assert.equal(compileSchema(schema), a);
  assert.notEqual(compileSchema({ ...schema }), a); // another object is compiled on its own
  assert.throws(() => compileSchema({ type: "string" })); // failures are not remembered as successes
});

Deno.test("schemas sharing one ajv keep their own rules, past the instance's reuse limit", () => {
  // More than one shared instance's worth (256), every draft that shares one.
  const drafts = [
    undefined,
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema#",
  ];
  for (let i = 0; i < 600; i++) {
    const $schema = drafts[i % drafts.length];
    const c = compileSchema({
      ...($schema ? { $schema } : {}),
      type: "object",
      properties: { [`p${i}`]: { type: "integer", maximum: i } },
      required: [`p${i}`],
      additionalProperties: false,
      $defs: { local: { type: "string" } },
    });
    assert.equal(c.validate({ [`p${i}`]: i }), true, `schema ${i}`);
    assert.equal(c.validate({ [`p${i}`]: i + 1 }), false, `schema ${i}: maximum`);
    assert.equal(c.validate({ [`p${i - 1}`]: 0 }), false, `schema ${i}: another's property`);
  }
});

Deno.test("two schemas may declare the same $id (ids are never shared between tools)", () => {
  const schema = (max: number) => ({
    $id: "https://example.com/same.json",
    type: "object",
    properties: { n: { $ref: "#/$defs/n" } },
    $defs: { n: { type: "integer", maximum: max } },
  });
  const a = compileSchema(schema(1));
  const b = compileSchema(schema(5));
  assert.equal(a.validate({ n: 3 }), false);
  assert.equal(b.validate({ n: 3 }), true);
  // An invalid schema is still refused after others compiled on the shared instance.
  assert.throws(
    () => compileSchema({ type: "object", properties: { n: { minLength: -1 } } }),
    SchemaCompileError,
  );
});

Deno.test("a schema refused once is refused again: ajv's cache does not skip its meta-schema check", () => {
  const refused: Record<string, unknown>[] = [
    { type: "object", properties: { a: { type: "number", multipleOf: 0 } } },
    { type: "object", required: ["a", "a"] },
    { type: "object", properties: { a: { type: "number", minimum: "3" } } },
    {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { a: { type: "number", multipleOf: -1 } },
    },
  ];
  for (const schema of refused) {
    for (let i = 0; i < 3; i++) {
      assert.throws(() => compileSchema(schema), SchemaCompileError, JSON.stringify(schema));
    }
  }
});
