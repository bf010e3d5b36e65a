/**
 * A toolhost out of file descriptors for a moment (EMFILE: a flood of connections or
 * calls) must neither take another live toolhost for dead nor record itself incompletely
 * — with one more toolhost sharing the state directory, either one hands a live call's
 * directories to a sweep. Before the fix, the first read of the boot id failed, was cached
 * as null for good, and from then on this process judged every live owner dead (its sweep
 * removed their call directories) and wrote owner records that every other toolhost
 * judged dead; and an owner record that could not be opened was taken for a missing one,
 * so a live folder older than a minute was swept (a live session's harness ended).
 */

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCallDirs } from "../../lib/process/call_dirs.ts";
import { currentOwner, ownerIsAlive } from "../../lib/sessions/session_dir.ts";

const FIXTURE = new URL("./fixtures/fd_starved_owner.ts", import.meta.url).pathname;

Deno.test("a toolhost starved of descriptors for a moment never judges a live owner dead nor records itself incompletely", async () => {
  const state = mkdtempSync(join(tmpdir(), "toolhost-fd-starved-"));
  const mine = await createCallDirs(state); // a live call of this process
  try {
    const out = await new Deno.Command("/bin/sh", {
      args: [
        "-c",
        'ulimit -n 64 && exec "$0" "$@"',
        Deno.execPath(),
        "run",
        "-A",
        "--quiet",
        FIXTURE,
        state,
        JSON.stringify(currentOwner()),
        mine.root,
      ],
      stdin: "null",
    }).output();
    const err = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, err);
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(r.otherAliveDuring, true, "a live owner was judged dead during the flood");
    assert.equal(r.liveStaleDuring, false, "a live call directory was judged stale");
    assert.equal(r.madeDuring, false, "precondition: the flood refused a call directory");
    assert.equal(typeof r.written.startTime, "number", "an owner record without a start time");
    assert.equal(r.written.bootId, currentOwner().bootId, "an owner record without a boot id");
    assert.ok(ownerIsAlive(r.written) === false, "the starved process has exited by now");
    assert.equal(r.removed, 0, "its sweep removed a live call directory");
    assert.ok(existsSync(mine.outputDir), "a live call's directory was removed");
  } finally {
    await mine.remove();
    rmSync(state, { recursive: true, force: true });
  }
});
