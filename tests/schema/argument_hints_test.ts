/**
 * Argument errors say what to fix — the missing property, the expected type, the violated
 * limit, the allowed values, all from the schema — and never echo a value (issue 17).
 * A table of 20 wrong calls, each with the fix its message must name.
 *
 * @module
 */

import assert from "node:assert/strict";
import { compileSchema } from "../../lib/schema/compile_schema.ts";
import { admitArgs, InvalidArguments } from "../../lib/schema/admit_args.ts";

const S = "SECRET-x9"; // every wrong value carries it, so an echo is caught

const SCHEMA = {
  type: "object",
  properties: {
    text: { type: "string", minLength: 1, maxLength: 8 },
    count: { type: "integer", minimum: 1, maximum: 10 },
    ratio: { type: "number", exclusiveMinimum: 0, multipleOf: 0.5 },
    mode: { enum: ["fast", "slow", "auto"] },
    kind: { const: "file" },
    slug: { type: "string", pattern: "^[a-z]+$" },
    email: { type: "string", format: "email" },
    tags: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2, uniqueItems: true },
    opts: {
      type: "object",
      properties: { deep: { type: "boolean" } },
      additionalProperties: false,
    },
    either: { oneOf: [{ type: "string" }, { type: "integer" }] },
    any: { anyOf: [{ type: "string" }, { type: "boolean" }] },
    no: { not: { type: "string" } },
    flag: { type: "boolean" },
    pair: { type: "object", dependentRequired: { from: ["to"] } },
  },
  required: ["text"],
  additionalProperties: false,
};

const OK = { text: "ok" };

/** [what is wrong, the arguments, what the message must say]. */
const TABLE: [string, Record<string, unknown>, RegExp][] = [
  ["missing required", {}, /at \/ .*required: add the required property `text`/],
  ["string given a number", { text: 5 }, /at \/text .*type: must be a string/],
  ["integer given a string", { ...OK, count: S }, /at \/count .*must be an integer/],
  ["integer given a fraction", { ...OK, count: 1.5 }, /at \/count .*must be an integer/],
  ["empty string", { text: "" }, /at \/text .*at least 1 character long \(minLength 1\)/],
  [
    "string too long",
    { text: `${S}-long` },
    /at \/text .*at most 8 characters long \(maxLength 8\)/,
  ],
  ["number too big", { ...OK, count: 11 }, /at \/count .*must be <= 10 \(maximum 10\)/],
  ["number too small", { ...OK, count: 0 }, /at \/count .*must be >= 1 \(minimum 1\)/],
  ["exclusive minimum", { ...OK, ratio: 0 }, /at \/ratio .*must be > 0 \(exclusiveMinimum 0\)/],
  ["not a multiple", { ...OK, ratio: 0.7 }, /at \/ratio .*multiple of 0.5 \(multipleOf 0.5\)/],
  ["enum", { ...OK, mode: S }, /at \/mode .*must be one of "fast", "slow", "auto"/],
  ["const", { ...OK, kind: S }, /at \/kind .*must be exactly "file"/],
  ["pattern", { ...OK, slug: S }, /at \/slug .*must match the pattern `\^\[a-z\]\+\$`/],
  ["format", { ...OK, email: S }, /at \/email .*must be a valid `email`/],
  ["too few items", { ...OK, tags: [] }, /at \/tags .*at least 1 item \(minItems 1\)/],
  ["too many items", { ...OK, tags: ["a", "b", S] }, /at \/tags .*at most 2 items \(maxItems 2\)/],
  ["duplicate items", { ...OK, tags: [S, S] }, /at \/tags .*items must be unique/],
  [
    "unexpected property",
    { ...OK, [S]: 1 },
    /at \/ .*remove the unexpected property; allowed: `text`, `count`/,
  ],
  ["nested unexpected", { ...OK, opts: { [S]: true } }, /at \/opts .*allowed: `deep`/],
  [
    "dependent required",
    { ...OK, pair: { from: S } },
    /add the property `to`, required when `from` is given/,
  ],
];

function message(args: Record<string, unknown>): string {
  const c = compileSchema(SCHEMA);
  try {
    admitArgs(args, c);
  } catch (e) {
    assert.ok(e instanceof InvalidArguments, String(e));
    return e.message;
  }
  throw new assert.AssertionError({ message: "arguments were admitted" });
}

Deno.test("20 wrong calls: each message names the fix and echoes no value", () => {
  assert.equal(TABLE.length, 20);
  const misses: string[] = [];
  for (const [what, args, want] of TABLE) {
    const msg = message(args);
    assert.ok(!msg.includes("SECRET"), `${what} echoed a value:\n${msg}`);
    assert.ok(/^[\x20-\x7e\n]*$/.test(msg), `${what}: not printable ASCII`);
    if (!want.test(msg)) misses.push(`${what}: ${want}\n${msg}`);
  }
  // Every row must say what to fix; measured: 20 of 20.
  assert.deepEqual(misses, [], misses.join("\n\n"));
});

Deno.test("combinators and booleans say which rule to satisfy", () => {
  assert.match(message({ ...OK, either: true }), /oneOf: must match exactly one/);
  assert.match(message({ ...OK, any: 1 }), /anyOf: must match at least one/);
  assert.match(message({ ...OK, no: S }), /not: must not match/);
  assert.match(message({ ...OK, flag: S }), /must be a boolean/);
});

Deno.test("long allowed-value lists and patterns are bounded", () => {
  const values = Array.from({ length: 200 }, (_, i) => `value-${i}-${"v".repeat(100)}`);
  const c = compileSchema({
    type: "object",
    properties: { e: { enum: values }, p: { type: "string", pattern: `^${"a".repeat(5000)}$` } },
  });
  let msg = "";
  try {
    admitArgs({ e: S, p: S }, c);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert.match(msg, /\(200 in all\)/);
  assert.ok(msg.length < 2000, `${msg.length} characters`);
  assert.ok(!msg.includes("SECRET"));
});
