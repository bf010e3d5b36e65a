/**
 * Plain-protocol argv: only top-level `input_schema.properties` placeholders, `{{`/`}}`
 * literal braces, no `{ artifact = ... }` operands.
 */

import assert from "node:assert/strict";
import {
  BASE_FILES,
  BASE_TOML,
  expectLoads,
  expectProblem,
  JSON_TOOL,
  toolTable,
} from "../helpers/workspace.ts";

const AT = "artifacts.app.views.agent_tools.x";
const SCHEMA = {
  type: "object",
  properties: { query: { type: "string" }, n: { type: "integer" } },
  required: ["query"],
};

function plain(args: unknown[], input_schema: unknown = SCHEMA): string {
  // `null` means "no input_schema" (undefined would take the default above)
  if (input_schema === null) input_schema = undefined;
  return BASE_TOML + toolTable("app", "x", { ...JSON_TOOL, protocol: "plain", args, input_schema });
}

// Seed: "For plain, only top-level declared input_schema.properties can appear as argv
// placeholders. Whole-token {query} and embedded --query={query} both work."
Deno.test("plain: whole-token and embedded placeholders of top-level properties load", async () => {
  const ws = await expectLoads(plain(["{query}", "--query={query}", "-n{n}", "{query}{n}"]));
  const x = ws.artifacts.get("app")!.agentTools.x;
  assert.deepEqual(x.type === "command" && x.args, [
    "{query}",
    "--query={query}",
    "-n{n}",
    "{query}{n}",
  ]);
});

Deno.test("plain: a placeholder that is not a top-level property is rejected", async () => {
  await expectProblem(plain(["--", "{missing}"]), BASE_FILES, {
    keyPath: `${AT}.args[1]`,
    message: /`\{missing\}` is not a top-level property/,
  });
  // a nested property does not count
  const nested = {
    type: "object",
    properties: { outer: { type: "object", properties: { inner: { type: "string" } } } },
  };
  await expectProblem(plain(["{inner}"], nested), BASE_FILES, {
    keyPath: `${AT}.args[0]`,
    message: /not a top-level property/,
  });
  // nor does the default schema (no properties)
  await expectProblem(plain(["{query}"], null), BASE_FILES, { keyPath: `${AT}.args[0]` });
});

Deno.test("plain: a misspelt placeholder names the property it likely meant, and all of them", async () => {
  await expectProblem(plain(["{qeury}"]), BASE_FILES, {
    keyPath: `${AT}.args[0]`,
    message: /`\{qeury\}` is not .* \(did you mean `\{query\}`\?\); its properties: query, n$/,
  });
});

// Seed: "{{ and }} escape literal braces."
Deno.test("plain: {{ and }} are literal braces, not placeholders", async () => {
  await expectLoads(plain(["{{", "}}", "{{missing}}", "a{{b}}c", "{{{query}}}"]));
});

Deno.test("plain: malformed or unmatched braces are rejected", async () => {
  for (const bad of ["{", "}", "{}", "a{b", "{query", "{a b}"]) {
    await expectProblem(plain([bad]), BASE_FILES, { keyPath: `${AT}.args[0]` });
  }
});

// Seed: "Plain argv uses only its schema-property placeholders."
Deno.test("plain: { artifact = ID } operands are rejected", async () => {
  await expectProblem(plain(["{query}", { artifact: "app" }]), BASE_FILES, {
    keyPath: `${AT}.args[1]`,
    message: /only allowed in json-protocol and session argv/,
  });
});

Deno.test("json: argv strings are literal (no placeholder check)", async () => {
  await expectLoads(BASE_TOML + toolTable("app", "x", { ...JSON_TOOL, args: ["{anything}", "}"] }));
});

Deno.test("argv strings with NUL are rejected", async () => {
  await expectProblem(plain(["a\u0000b"]), BASE_FILES, {
    keyPath: `${AT}.args[0]`,
    message: /NUL/,
  });
});
