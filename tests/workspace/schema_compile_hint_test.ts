/**
 * An input schema that does not compile is reported in words, at the tool's
 * `input_schema` key with its line: the key inside the schema and the rule it breaks —
 * not ajv's own text ("schema is invalid: data/properties/q/minLength must be >= 0",
 * repeated per meta-schema branch) and never a value the author wrote (a pattern, a
 * `$ref`, a default).
 */

import assert from "node:assert/strict";
import { compileSchema, SchemaCompileError } from "../../lib/schema/compile_schema.ts";
import {
  BASE_FILES,
  BASE_TOML,
  expectProblem,
  JSON_TOOL,
  toolTable,
} from "../helpers/workspace.ts";

const AT = "artifacts.app.views.agent_tools.x";
/** A value no message may echo. */
const SECRET = "hunter2-value";

function withSchema(props: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const input_schema = {
    type: "object",
    properties: { q: { default: SECRET, ...props } },
    ...extra,
  };
  return BASE_TOML + toolTable("app", "x", { ...JSON_TOOL, input_schema });
}

const CASES: [string, string, RegExp][] = [
  [withSchema({ type: "string", minLength: -1 }), "properties.q.minLength", /must be at least 0/],
  [withSchema({ type: "string", maxLength: 1.5 }), "properties.q.maxLength", /must be an integer/],
  [withSchema({ type: "number", multipleOf: 0 }), "properties.q.multipleOf", /greater than 0/],
  [withSchema({}, { required: "q" }), "required", /must be an array/],
  [withSchema({ enum: [] }), "properties.q.enum", /must list at least one value/],
  [
    withSchema({ type: "string", pattern: "(?=lookahead)" }),
    "properties.q.pattern",
    /RE2 syntax \(no lookaround, no backreferences\)/,
  ],
  [withSchema({ $ref: "#/$defs/nowhere" }), 'properties.q."$ref"', /names nothing/],
  [withSchema({}, { additionalProperties: "no" }), "additionalProperties", /must be a schema/],
  [
    withSchema({ type: "string", dependentRequired: { a: SECRET } }),
    "properties.q.dependentRequired.a",
    /must be an array/,
  ],
];

Deno.test("a schema that does not compile names the key inside it and the rule, in words", async () => {
  for (const [toml, inner, rule] of CASES) {
    const problems = await expectProblem(toml, BASE_FILES, {
      keyPath: `${AT}.input_schema`,
      message: /^the schema does not compile: /,
    });
    const p = problems.find((x) => x.keyPath === `${AT}.input_schema`)!;
    assert.ok(p.message.includes(`\`${inner}\``), `${inner}: ${p.message}`);
    assert.match(p.message, rule);
    assert.match(p.message, /fix that key of input_schema$/);
    for (const raw of ["schema is invalid", "data/", ">=", "lookahead", "nowhere", SECRET]) {
      assert.ok(!p.message.includes(raw), `${inner}: leaks ${JSON.stringify(raw)}: ${p.message}`);
    }
  }
});

Deno.test("the compiler's own message is kept on the error; the hint rides along", () => {
  try {
    compileSchema({ type: "object", properties: { q: { type: "string", minLength: -1 } } });
    assert.fail("compiled");
  } catch (e) {
    assert.ok(e instanceof SchemaCompileError);
    assert.match(e.message, /^the schema does not compile: schema is invalid: /);
    assert.deepEqual(e.hint, { keyPath: "properties.q.minLength", rule: "must be at least 0" });
  }
});

Deno.test("a key of patternProperties is named by its place, never shown", () => {
  try {
    compileSchema({
      type: "object",
      patternProperties: { "^a$": { type: "string" }, "^sk-SECRET$": { type: 5 } },
    });
    assert.fail("compiled");
  } catch (e) {
    assert.ok(e instanceof SchemaCompileError);
    assert.equal(e.hint?.keyPath, "patternProperties[2].type");
    assert.doesNotMatch(JSON.stringify(e.hint), /SECRET/);
  }
});
