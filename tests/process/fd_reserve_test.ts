/**
 * The reserve descriptor is a number held across calls: if some other code closed that
 * number and the kernel gave it to another file, withReserve must not close that file.
 *
 * The scenario closes a descriptor number on purpose, so it runs in a process of its own
 * (tests/fixtures/process/fd_reserve_child.ts): test modules run on threads of one
 * process, and another test's file could take the freed number.
 */

import assert from "node:assert/strict";
import { holdReserve, reserveFd, withReserve } from "../../lib/process/fd_reserve.ts";

Deno.test("withReserve never closes a file that took the reserve's number", async () => {
  const child = new URL("../fixtures/process/fd_reserve_child.ts", import.meta.url);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", child.pathname],
    stdin: "null",
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0);
  const r = JSON.parse(new TextDecoder().decode(out.stdout)) as Record<string, boolean>;
  assert.ok(r.checked, "no attempt got the reserve's number back (test setup)");
  assert.equal(r.closedOther, false, "another file's descriptor was closed");
  assert.equal(r.stillHeld, false, "the abandoned number is still held");
});

Deno.test("a failed read gives the reserve back for the second read and holds one again", () => {
  holdReserve();
  assert.ok(reserveFd() !== undefined);
  let reads = 0;
  const result = withReserve(() => ++reads, (r) => r === 1);
  assert.equal(result, 2, "the read was not tried once more");
  assert.ok(reserveFd() !== undefined, "no reserve held after the retry");
});
