import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/validation/ajv"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { lazyJsonSchemaValidator } from "../../lib/mcp/lazy_validator.ts";

Deno.test("the lazy validator answers as the SDK's default one", () => {
  const schema = {
    type: "object" as const,
    properties: {
      email: { type: "string" as const, format: "email" },
      n: { type: "integer" as const },
    },
    required: ["email"],
  };
  const lazy = lazyJsonSchemaValidator().getValidator(schema);
  const sdk = new AjvJsonSchemaValidator().getValidator(schema);
  for (const input of [{ email: "a@b.co", n: 1 }, { email: "nope" }, { n: 1.5 }, null, "x"]) {
    assert.deepEqual(lazy(input), sdk(input), JSON.stringify(input));
  }
  assert.equal(lazy({ email: "a@b.co" }).valid, true);
  assert.equal(lazy({ email: "nope" }).valid, false);
});
