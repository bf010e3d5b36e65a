/**
 * Where `deno compile` cannot download its denort runtime, `deno task compile` says so and
 * names both ways on: DENORT_BIN, or the Node single binary that needs no download.
 */

import assert from "node:assert/strict";
import { failureReason } from "../../scripts/compile.ts";

Deno.test("compile: an unreachable denort host names DENORT_BIN and build:sea", () => {
  const esc = String.fromCharCode(27);
  const reason = failureReason(
    `${esc}[31merror${esc}[0m: error sending request for url (https://dl.deno.land/...): dns error`,
  );
  assert.match(reason, /^deno compile could not download its denort runtime/);
  assert.match(reason, /set DENORT_BIN/);
  assert.match(reason, /`deno task build:sea`/);
  assert.equal(
    failureReason("error: something else\nmore"),
    "deno compile failed: error: something else",
  );
});
