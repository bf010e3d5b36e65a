/**
 * Argument admission: a JSON object of at most 64 KiB, validation errors with at most
 * five bounded, escaped paths (under 4 KiB), never argument values; RE2 patterns.
 */

import assert from "node:assert/strict";
import { compileSchema } from "../../lib/schema/compile_schema.ts";
import { admitArgs, InvalidArguments } from "../../lib/schema/admit_args.ts";

const KiB64 = 64 * 1024;
const SECRET = "SECRET-hunter2";

/** The admission error message for `args`, asserting that admission fails. */
function failure(args: unknown, schema: Record<string, unknown>): string {
  const c = compileSchema(schema);
  try {
    admitArgs(args, c);
  } catch (e) {
    assert.ok(e instanceof InvalidArguments, String(e));
    assert.equal(e.code, "INVALID_ARGUMENTS");
    return e.message;
  }
  throw new assert.AssertionError({ message: "arguments were admitted" });
}

function utf8(s: string): number {
  return new TextEncoder().encode(s).byteLength;
}

// Seed: "Calls require a JSON object of at most 64 KiB before any process or output
// directory is created."
Deno.test("args: 64 KiB - 1 and exactly 64 KiB serialized are admitted, +1 is rejected", () => {
  const c = compileSchema({ type: "object", properties: { s: { type: "string" } } });
  const overhead = JSON.stringify({ s: "" }).length;
  for (const size of [KiB64 - 1, KiB64]) {
    const args = { s: "a".repeat(size - overhead) };
    assert.equal(utf8(JSON.stringify(args)), size);
    assert.deepEqual(admitArgs(args, c), args);
  }
  const over = { s: "a".repeat(KiB64 + 1 - overhead) };
  assert.throws(() => admitArgs(over, c), /65537 bytes serialized; the limit is 65536/);
});

Deno.test("args: the 64 KiB bound counts UTF-8 bytes, not characters", () => {
  const c = compileSchema({ type: "object" });
  const overhead = JSON.stringify({ s: "" }).length;
  const args = { s: "é".repeat((KiB64 - overhead) / 2 + 1) }; // 2 bytes each
  assert.ok(JSON.stringify(args).length < KiB64);
  assert.throws(() => admitArgs(args, c), InvalidArguments);
});

Deno.test("args: non-objects are rejected", () => {
  const c = compileSchema({ type: "object" });
  for (const bad of [null, [], [1], "x", 1, true, undefined]) {
    assert.throws(() => admitArgs(bad, c), /must be a JSON object/);
  }
  assert.throws(() => admitArgs({ n: 1n }, c), /JSON-serializable/);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(() => admitArgs(cyclic, c), /JSON-serializable/);
  assert.deepEqual(admitArgs({}, c), {});
});

Deno.test("args: the default schema admits only {}", () => {
  const c = compileSchema({ type: "object", additionalProperties: false });
  assert.deepEqual(admitArgs({}, c), {});
  assert.throws(() => admitArgs({ a: 1 }, c), InvalidArguments);
});

Deno.test("admission never mutates the caller's object", () => {
  const c = compileSchema({
    type: "object",
    properties: { a: { type: "string", default: "d" }, o: { type: "object" } },
    additionalProperties: { type: "integer", default: 3 },
  });
  const args = { o: { nested: [1, 2] }, n: 4 };
  const snapshot = structuredClone(args);
  const out = admitArgs(args, c);
  assert.deepEqual(args, snapshot);
  assert.deepEqual(out, snapshot);
});

// Seed: "Validation errors show at most five bounded, escaped instance/schema paths (under
// 4 KiB), never argument values."
Deno.test("errors: 1000 failing properties show five paths and stay under 4 KiB", () => {
  const properties: Record<string, unknown> = {};
  const args: Record<string, unknown> = {};
  for (let i = 0; i < 1000; i++) {
    properties[`p${i}`] = { type: "integer" };
    args[`p${i}`] = SECRET;
  }
  const msg = failure(args, { type: "object", properties });
  const paths = msg.split("\n").filter((l) => l.startsWith("- at "));
  assert.equal(paths.length, 5);
  assert.match(msg, /995 more not shown/);
  assert.match(
    paths[0],
    /^- at \/p0 \(schema #\/properties\/p0\/type\): type: must be an integer$/,
  );
  assert.ok(utf8(msg) < 4096, `${utf8(msg)} bytes`);
  assert.ok(!msg.includes(SECRET));
});

Deno.test("errors: four failing paths are all shown, without a 'more' line", () => {
  const properties = Object.fromEntries(["a", "b", "c", "d"].map((k) => [k, { type: "integer" }]));
  const msg = failure({ a: "x", b: "x", c: "x", d: "x" }, { type: "object", properties });
  assert.equal(msg.split("\n").filter((l) => l.startsWith("- at ")).length, 4);
  assert.ok(!/more not shown/.test(msg));
});

Deno.test("errors: huge declared property names are bounded (ASCII and non-ASCII)", () => {
  for (const ch of ["n", "界", "😀"]) {
    const name = ch.repeat(10000);
    const msg = failure({ [name]: 1 }, {
      type: "object",
      properties: { [name]: { type: "string" } },
    });
    assert.ok(utf8(msg) < 4096, `${ch}: ${utf8(msg)} bytes`);
    assert.ok(!msg.includes(ch.repeat(200)), "segment not bounded");
  }
});

Deno.test("errors: deep paths of long non-ASCII names stay under 4 KiB (bytes)", () => {
  const name = "界".repeat(130);
  let schema: Record<string, unknown> = { type: "integer" };
  let args: unknown = "x";
  for (let i = 0; i < 40; i++) {
    schema = { type: "object", properties: { [name]: schema } };
    args = { [name]: args };
  }
  const msg = failure(args, schema);
  assert.ok(utf8(msg) < 4096, `${utf8(msg)} bytes`);
  assert.ok(/^[\x20-\x7e\n]*$/.test(msg), "message is escaped to printable ASCII");
});

Deno.test("errors never contain argument values or unexpected keys", () => {
  const schema = {
    type: "object",
    properties: {
      k: { const: "x" },
      e: { enum: ["a", "b"] },
      p: { type: "string", pattern: "^[0-9]+$" },
      m: { type: "string", maxLength: 3 },
      f: { type: "string", format: "email" },
      arr: { type: "array", items: { type: "integer" } },
      obj: { type: "object", additionalProperties: { type: "integer" } },
    },
    required: ["k", "missing"],
    additionalProperties: false,
    propertyNames: { maxLength: 40 },
  };
  const args = {
    k: SECRET,
    e: SECRET,
    p: SECRET,
    m: SECRET,
    f: SECRET,
    arr: [1, SECRET],
    obj: { [SECRET]: SECRET, "123": SECRET },
    [SECRET]: SECRET,
    [`${SECRET}-and-a-very-long-unexpected-key-name`]: 1,
  };
  const msg = failure(args, schema);
  assert.ok(!msg.includes("hunter2"), msg);
  assert.ok(!msg.includes("SECRET"), msg);
  // every problem is reported by path only; only five are shown
  assert.equal(msg.split("\n").filter((l) => l.startsWith("- at ")).length, 5);
  // Unexpected keys in nested objects are hidden, array indices are shown.
  const nested = failure({ obj: { [SECRET]: "x" }, arr: [0, "x"] }, schema);
  assert.ok(!nested.includes("SECRET"), nested);
  assert.match(nested, /\/obj\/<key>/);
  assert.match(nested, /\/arr\/1 /);
});

Deno.test("errors: a numeric object key is a key, not an array index: hidden", () => {
  const schema = {
    type: "object",
    properties: { obj: { type: "object", additionalProperties: { type: "integer" } } },
  };
  const msg = failure({ obj: { "1234": "x" } }, schema);
  assert.ok(!msg.includes("1234"), msg);
  assert.match(msg, /\/obj\/<key> /);
});

Deno.test("errors: the missing required property is named by the schema, not the args", () => {
  const msg = failure({}, { type: "object", required: ["query"] });
  assert.match(msg, /- at \/ \(schema #\/required\): required: add the required property `query`/);
});

// DESIGN: "JS backtracking on untrusted patterns is not acceptable."
Deno.test("pattern ^(a+)+$ against 50,000 'a' + '!' completes (RE2, no backtracking)", () => {
  const c = compileSchema({
    type: "object",
    properties: { s: { type: "string", pattern: "^(a+)+$" } },
  });
  const evil = `${"a".repeat(50000)}!`;
  assert.throws(() => admitArgs({ s: evil }, c), /pattern/);
  assert.deepEqual(admitArgs({ s: "aaaa" }, c), { s: "aaaa" });
  // patternProperties go through the same engine
  const pp = compileSchema({
    type: "object",
    patternProperties: { "^(a+)+$": { type: "integer" } },
  });
  assert.deepEqual(admitArgs({ [evil]: "not checked" }, pp), { [evil]: "not checked" });
});
