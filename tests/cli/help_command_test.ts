/**
 * `toolhost help A B` shows the help of `toolhost A B`, as `toolhost A B --help` does
 * (commander's own help command stops at its first word).
 */

import assert from "node:assert/strict";
import { runCapture } from "../helpers/cli.ts";

Deno.test("toolhost help tools call: the help of `tools call`, not of `tools`", async () => {
  const viaHelp = await runCapture(["help", "tools", "call"]);
  const viaFlag = await runCapture(["tools", "call", "--help"]);
  assert.equal(viaHelp.code, 0, viaHelp.err);
  assert.match(viaHelp.out, /^Usage: toolhost tools call /);
  assert.equal(viaHelp.out, viaFlag.out);
  const one = await runCapture(["help", "tools"]);
  assert.match(one.out, /^Usage: toolhost tools /);
});
