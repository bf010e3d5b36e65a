/**
 * A group spawned while this process has no descriptor left (EMFILE: a flood of
 * connections or calls) must still be recorded with its leader's start time and the boot
 * id. Before the reserve descriptor, the record kept `startTime: null`: the group could
 * not be confirmed as ours, so a timeout could not signal it, and after a crash no sweep
 * would end it.
 */

import assert from "node:assert/strict";

const FIXTURE = new URL("../fixtures/process/fd_starved_record.ts", import.meta.url).pathname;

Deno.test("a group spawned in a descriptor flood is recorded with its identity", async () => {
  const out = await new Deno.Command("/bin/sh", {
    args: [
      "-c",
      'ulimit -n 64 && exec "$0" "$@"',
      Deno.execPath(),
      "run",
      "-A",
      "--quiet",
      FIXTURE,
    ],
    stdin: "null",
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, err);
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(r.flooded, true, "the fixture must really run out of descriptors");
  assert.equal(r.self.startTime, r.before.startTime);
  assert.equal(r.self.bootId, r.before.bootId);
  assert.notEqual(r.during.startTime, null);
  assert.equal(r.during.startTime, r.after.startTime);
  assert.equal(r.during.bootId, r.before.bootId);
});
