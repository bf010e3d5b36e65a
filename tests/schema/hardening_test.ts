/**
 * Schema admission hardening (audit): `$async` schemas are refused (their validator answers
 * with a Promise that admission would read as "valid"); `format: "url"` is linear (ajv-
 * formats' regex took ~5 s on a 64 KiB value); `required: ["constructor"]` is not met by
 * Object.prototype; schemas and arguments nested past 256 levels are refused with a
 * message, never a stack overflow (at, below and above the bound).
 */
import assert from "node:assert/strict";
import {
  compileSchema,
  MAX_SCHEMA_DEPTH,
  SchemaCompileError,
} from "../../lib/schema/compile_schema.ts";
import { admitArgs, InvalidArguments, MAX_ARGS_DEPTH } from "../../lib/schema/admit_args.ts";

const nest = (d: number): unknown => JSON.parse("[".repeat(d) + "]".repeat(d));

Deno.test("`$async` schemas are refused at compile time", () => {
  assert.throws(
    () => compileSchema({ $async: true, type: "object", properties: { n: { type: "number" } } }),
    (e: unknown) => e instanceof SchemaCompileError && /\$async/.test((e as Error).message),
  );
});

Deno.test("format url checks a 64 KiB value in linear time and still rejects non-URLs", () => {
  const c = compileSchema({ type: "object", properties: { u: { type: "string", format: "url" } } });
  const evil = "http://" + ":@".repeat(32_500);
  const plain = "http://" + "ab".repeat(32_500);
  // Against a same-length plain URL validated in the same run, not a clock: a loaded
  // machine slows both alike. The evil value took ~1,000× as long before (~5 s).
  const time = (u: string) => {
    const t = performance.now();
    c.validate({ u });
    return performance.now() - t;
  };
  time(plain); // the first call compiles the format's pattern
  const base = Math.min(time(plain), time(plain));
  const ms = time(evil);
  assert.ok(ms < 50 * base + 50, `url format took ${ms.toFixed(0)} ms (plain ${base.toFixed(1)})`);
  assert.equal(c.validate({ u: "https://example.com/a?b=c" }), true);
  assert.equal(c.validate({ u: "not a url" }), false);
});

Deno.test("required names are own properties: `constructor` is not met by the prototype", () => {
  const c = compileSchema({ type: "object", required: ["constructor", "toString"] });
  assert.throws(() => admitArgs({}, c), InvalidArguments);
  admitArgs({ constructor: 1, toString: 2 }, c);
});

Deno.test("schema nesting: 256 levels compile, 257 are refused with a message", () => {
  assert.equal(MAX_SCHEMA_DEPTH, 256);
  // The schema object is 1 level; `default` holds the rest.
  compileSchema({ type: "object", default: nest(MAX_SCHEMA_DEPTH - 1) });
  compileSchema({ type: "object", default: nest(MAX_SCHEMA_DEPTH - 2) });
  assert.throws(
    () => compileSchema({ type: "object", default: nest(MAX_SCHEMA_DEPTH) }),
    /nests deeper than 256 levels/,
  );
  assert.throws(() => compileSchema({ type: "object", default: nest(20_000) }), SchemaCompileError);
});

Deno.test("argument nesting: 256 levels are admitted, 257 refused without a value", () => {
  assert.equal(MAX_ARGS_DEPTH, 256);
  const c = compileSchema({ type: "object" });
  admitArgs({ a: nest(MAX_ARGS_DEPTH - 1) }, c);
  admitArgs({ a: nest(MAX_ARGS_DEPTH - 2) }, c);
  assert.throws(() => admitArgs({ a: nest(MAX_ARGS_DEPTH) }, c), /nest deeper than 256 levels/);
  assert.throws(() => admitArgs({ a: nest(9_000) }, c), InvalidArguments);
});
