/**
 * `--args` that is not JSON: the error says where it stops, and when the shell ate the
 * double quotes, says so; it never repeats the text (it may hold a value).
 */

import assert from "node:assert/strict";
import { InvocationError } from "../../lib/errors/errors.ts";
import { parseArgsOption } from "../../lib/cli/common_options.ts";
import { fixture, runCapture } from "../helpers/cli.ts";

function messageOf(raw: string): string {
  try {
    parseArgsOption(raw);
  } catch (e) {
    assert.ok(e instanceof InvocationError);
    return e.message;
  }
  throw new Error("parsed");
}

Deno.test("--args: where the JSON stops, by position only", () => {
  const m = messageOf('{"path": "hunter2secret" x}');
  assert.match(m, /It stops being JSON at character 26 of 27\./);
  assert.ok(!m.includes("hunter2"), m);
  assert.ok(!m.includes("shell removed"), m);
});

Deno.test("--args: double quotes the shell removed are named as the cause", () => {
  // What `--args {"path":"README.md"}` reaches toolhost as, unquoted in sh.
  const m = messageOf("{path:README.md}");
  assert.match(m, /at character 2 of 16\. .*the shell removed them; put the whole JSON in single/);
  assert.ok(!m.includes("README"), m);
});

Deno.test("tools call --args {unquoted}: exit 2, the cause, no trace", async () => {
  const r = await runCapture([
    "tools",
    "call",
    "read_app",
    "--eval",
    "app/review",
    "--repo",
    fixture("scoped"),
    "--args",
    "{path:README.md}",
  ]);
  assert.equal(r.code, 2);
  assert.equal(r.out, "");
  assert.match(r.err, /the shell removed them/);
  assert.ok(!/\n\s+at /.test(r.err), r.err);
});
