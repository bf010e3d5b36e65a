import assert from "node:assert/strict";
import type { ToolResult } from "../../lib/results/types.ts";
import { callJson, callPlain } from "./helpers.ts";

const SECRET = "SECRET-STDERR-7f3a9c";

function assertNoSecret(r: ToolResult): void {
  assert.equal(JSON.stringify(r).includes(SECRET), false, "stderr leaked into a result");
}

Deno.test("stderr never reaches a json result, whatever the outcome", async () => {
  const ok = await callJson("misbehave.sh", ["secret_stderr", "0"]);
  assert.deepEqual(ok, { content: [{ type: "text", text: "public" }], isError: false });
  assertNoSecret(ok);
  assertNoSecret(await callJson("misbehave.sh", ["secret_stderr", "1"]));
  assertNoSecret(await callJson("misbehave.sh", ["secret_stderr_bad"]));
});

Deno.test("stderr never reaches a plain result, whatever the outcome", async () => {
  const ok = await callPlain("plain_emit.sh", ["secret_stderr", "0"]);
  assert.deepEqual(ok, { content: [{ type: "text", text: "public\n" }], isError: false });
  const failed = await callPlain("plain_emit.sh", ["secret_stderr", "3"]);
  assert.deepEqual(failed, { content: [{ type: "text", text: "public\n" }], isError: true });
  assertNoSecret(ok);
  assertNoSecret(failed);
});
