import assert from "node:assert/strict";
import { handleRequest, validateArgs } from "../../harness-kit/mod.ts";
import { runHandler } from "../../harness-kit/json_tool.ts";
import { socketPath } from "../../harness-kit/socket_rpc.ts";

const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, maxLength: 3, pattern: "^[a-z]+$" },
    n: { type: "integer", minimum: 1, maximum: 5 },
    tags: { type: "array", items: { enum: ["a", "b"] }, maxItems: 2 },
  },
  required: ["name"],
  additionalProperties: false,
};

Deno.test("the schema subset accepts valid arguments", () => {
  assert.deepEqual(validateArgs(SCHEMA, { name: "abc", n: 5, tags: ["a", "b"] }), []);
  assert.deepEqual(validateArgs(SCHEMA, { name: "a", n: 1 }), []);
});

Deno.test("the schema subset reports paths and rules, never values", () => {
  const secret = "SECRET-VALUE-123";
  const problems = validateArgs(SCHEMA, { name: secret, n: 6, tags: ["c", "a", "b"], [secret]: 1 });
  assert.deepEqual(problems, [
    "/name: must have at most 3 characters",
    "/n: must be <= 5",
    "/tags: must have at most 2 items",
    "/tags/0: must be one of the allowed values",
    "/: has a property that is not allowed",
  ]);
  assert.equal(problems.join(" ").includes("SECRET"), false);
  assert.deepEqual(validateArgs(SCHEMA, {}), ["/name: is required"]);
  assert.deepEqual(validateArgs(SCHEMA, { name: "a", x: 1 }), [
    "/: has a property that is not allowed",
  ]);
  assert.deepEqual(validateArgs(SCHEMA, { name: 1.5 }), ["/name: must be string"]);
  assert.deepEqual(validateArgs({ type: "number" }, 2), []);
});

const REQUEST = (args: unknown) =>
  JSON.stringify({
    version: 1,
    context: {
      artifactId: "app",
      artifactPath: "/w/app",
      outputDir: "/o",
      tmpDir: "/t",
      scope: {},
    },
    args,
  });

Deno.test("handleRequest: typed context, validation, thrown errors, invalid requests", async () => {
  const seen: unknown[] = [];
  const options = {
    schema: SCHEMA,
    handler: (
      args: { name: string },
      ctx: { artifactId: string; executionPaths: unknown; sessionDir?: string },
    ) => {
      seen.push([args.name, ctx.artifactId, ctx.executionPaths, ctx.sessionDir]);
      if (args.name === "bom") throw new Error("Boom, try again.");
      return `hi ${args.name}`;
    },
  };
  const ok = await handleRequest(REQUEST({ name: "ann" }), options, { TOOLHOST_SESSION_DIR: "/s" });
  assert.deepEqual(ok, { result: { content: [{ type: "text", text: "hi ann" }] }, exitCode: 0 });
  assert.deepEqual(seen, [["ann", "app", {}, "/s"]]);
  const bad = await handleRequest(REQUEST({ name: "SECRET-VALUE" }), options, {});
  assert.equal(bad.result?.isError, true);
  assert.match(
    JSON.stringify(bad.result),
    /The arguments were invalid: \/name: must have at most 3 characters/,
  );
  assert.equal(JSON.stringify(bad.result).includes("SECRET"), false);
  const thrown = await handleRequest(REQUEST({ name: "bom" }), options, {});
  assert.deepEqual(thrown.result, {
    isError: true,
    content: [{ type: "text", text: "Boom, try again." }],
  });
  assert.equal((await handleRequest("nope", options, {})).exitCode, 2);
  assert.equal(
    (await handleRequest('{"version":2,"context":{},"args":{}}', options, {})).exitCode,
    2,
  );
});

Deno.test("socketPath: absolute when it fits 107 bytes, else relative to the cwd", () => {
  const short = "/s/d";
  assert.equal(socketPath(short, "/w/app"), "/s/d/harness.sock");
  const project = `/${"p".repeat(60)}`;
  const deep = `${project}/.toolhost/state/sessions/0123456789abcdef/d`;
  assert.equal(
    socketPath(deep, `${project}/app`),
    "../.toolhost/state/sessions/0123456789abcdef/d/harness.sock",
  );
  assert.throws(() => socketPath(`/${"y".repeat(200)}/d`, "/w/app"), /too long for a Unix socket/);
});

const CONTEXT = {
  artifactId: "a",
  artifactPath: "/x",
  outputDir: "/tmp",
  tmpDir: "/tmp",
  scope: {},
  executionPaths: {},
};

Deno.test("pattern is never evaluated: no backtracking blow-up", () => {
  const schema = { type: "object", properties: { s: { type: "string", pattern: "(a+)+b" } } };
  // The string does not match: no error means the pattern was not evaluated (a timing
  // bound here would be a clock assertion on a shared machine; the result says it all).
  assert.deepEqual(validateArgs(schema, { s: "a".repeat(40) + "c" }), []);
});

Deno.test("an RE2-only pattern is no crash and no refusal", async () => {
  const schema = { type: "object", properties: { s: { type: "string", pattern: "(?i)^abc$" } } };
  assert.deepEqual(validateArgs(schema, { s: "ABC" }), []);
  const result = await runHandler({ schema, handler: () => "ok" }, { s: "ABC" }, CONTEXT);
  assert.equal(result.isError, undefined);
});

Deno.test("patternProperties keys are allowed as toolhost allowed them", async () => {
  const schema = {
    type: "object",
    patternProperties: { "^x": { type: "string" } },
    additionalProperties: false,
  };
  assert.deepEqual(validateArgs(schema, { x1: "a" }), []);
  const result = await runHandler({ schema, handler: () => "ok" }, { x1: "a" }, CONTEXT);
  assert.equal(result.isError, undefined);
});

Deno.test("a value too deep to walk is a clean problem, never an exception", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 200_000; i++) deep = [deep];
  let schema: Record<string, unknown> = {};
  for (let i = 0; i < 200_000; i++) schema = { items: schema };
  assert.deepEqual(validateArgs(schema, deep), ["/: could not be checked"]);
});
