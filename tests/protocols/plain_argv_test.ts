import assert from "node:assert/strict";
import { DeclarationError, InvocationError } from "../../lib/errors/errors.ts";
import { existsSync } from "node:fs";
import { callsRoot } from "../../lib/process/call_dirs.ts";
import { invokePlainCommand } from "../../lib/protocols/invoke.ts";
import { plainPlaceholders, substitutePlainArgv } from "../../lib/protocols/plain_argv.ts";
import { withStateDir } from "../process/helpers.ts";
import { callPlain } from "./helpers.ts";

Deno.test("whole-token and embedded placeholders; strings literal, others compact JSON", () => {
  const argv = substitutePlainArgv(
    ["--fixed", "{query}", "--query={query}", "{n}", "{flag}", "{obj}", "{nil}", "{q}{n}"],
    ["query", "n", "flag", "obj", "nil", "q"],
    { query: "a b", n: 3, flag: true, obj: { a: [1, "x"] }, nil: null, q: "" },
  );
  assert.deepEqual(argv, [
    "--fixed",
    "a b",
    "--query=a b",
    "3",
    "true",
    '{"a":[1,"x"]}',
    "null",
    "3",
  ]);
});

Deno.test("{{ and }} escape braces; substitution is single-pass", () => {
  assert.deepEqual(
    substitutePlainArgv(["{{query}}", "{{{query}}}", "a}}b{{", "{query}"], ["query"], {
      query: "{query}}}",
    }),
    ["{query}", "{{query}}}}", "a}b{", "{query}}}"],
  );
});

Deno.test("missing values and NUL bytes fail before spawn, without the value", () => {
  assert.throws(
    () => substitutePlainArgv(["{query}"], ["query"], {}),
    (e) =>
      e instanceof InvocationError && e.code === "INVALID_ARGUMENTS" && /`query`/.test(e.message),
  );
  assert.throws(
    () => substitutePlainArgv(["{query}"], ["query"], { query: "se\0cret" }),
    (e) => e instanceof InvocationError && /NUL/.test(e.message) && !e.message.includes("cret"),
  );
  assert.throws(
    () => substitutePlainArgv(["{other}"], ["query"], { other: "x" }),
    DeclarationError,
  );
  assert.throws(() => substitutePlainArgv(["a\0"], [], {}), DeclarationError);
  // NUL escaped inside JSON is not a NUL byte.
  assert.deepEqual(substitutePlainArgv(["{v}"], ["v"], { v: ["\0"] }), ['["\\u0000"]']);
});

Deno.test("plainPlaceholders lists names or reports the first syntax problem", () => {
  assert.deepEqual(plainPlaceholders(["--q={query}", "{{x}}", "{path}", "{query}"]), [
    "query",
    "path",
  ]);
  assert.deepEqual(plainPlaceholders([]), []);
  for (const bad of ["{unclosed", "}", "a}b", "{}", "{a{b}"]) {
    const r = plainPlaceholders(["x", bad]);
    assert.ok(!Array.isArray(r), bad);
    assert.equal(r.element, 1);
  }
});

const INJECTIONS = [
  "{query}",
  "}{",
  'double "quotes"',
  "single 'quotes'",
  "spaces  and\ttabs",
  "$(touch /tmp/toolhost-pwned)",
  "`id`",
  "a; rm -rf /",
  "x && y | z > out",
  "$HOME ~ * ?",
  "--flag=value",
  "line\nbreak",
];

Deno.test("each injection string stays exactly one literal argv element", async () => {
  const r = await callPlain("print_argv.mjs", ["{query}", "--query={query}", "{n}"], {
    properties: ["query", "n"],
    args: { query: INJECTIONS.join(" | "), n: { k: INJECTIONS } },
  });
  assert.equal(r.isError, false);
  const block = r.content[0];
  assert.ok(block.type === "text");
  const argv = JSON.parse(block.text);
  assert.deepEqual(argv, [
    INJECTIONS.join(" | "),
    `--query=${INJECTIONS.join(" | ")}`,
    JSON.stringify({ k: INJECTIONS }),
  ]);
  for (const value of INJECTIONS) {
    const one = await callPlain("print_argv.mjs", ["{query}"], {
      properties: ["query"],
      args: { query: value },
    });
    assert.ok(one.content[0].type === "text");
    assert.deepEqual(JSON.parse(one.content[0].text), [value]);
  }
});

Deno.test("argument errors happen before any directory or process exists", async () => {
  await withStateDir(async (stateDir) => {
    await assert.rejects(
      invokePlainCommand({
        command: "/bin/false",
        template: ["{query}"],
        properties: ["query"],
        args: {},
        cwd: "/",
        stateDir,
        baseEnv: {},
        onSpawn: () => assert.fail("must not spawn"),
      }),
      InvocationError,
    );
    assert.equal(existsSync(callsRoot(stateDir)), false);
  });
});
