/**
 * Entries planted at a sweepable name in a state directory (a cloned repository can ship
 * `.toolhost/state`) that are not folders — a symlink to a folder holding a dead owner's
 * record, a `<name>.trash` symlink or file — are not toolhost's: a sweep leaves them and
 * what they point to alone, and does not fail. A failed sweep refuses every session start
 * of the workspace ("earlier tool sessions or calls could not be cleaned up"), so one
 * symlink in `artifacts/` or one `calls/<id>.trash` file used to shut all of them down.
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sweepSessions } from "../../lib/sessions/sweep.ts";

const DEAD = `${JSON.stringify({ pid: 4_000_000, startTime: 1, bootId: null })}\n`;

Deno.test("non-folders at sweepable names are left alone and fail no sweep", async () => {
  const state = Deno.makeTempDirSync({ prefix: "toolhost-planted-" });
  try {
    const victim = join(state, "victim");
    mkdirSync(join(victim, "keep"), { recursive: true });
    writeFileSync(join(victim, "owner.json"), DEAD);
    for (const kind of ["calls", "sessions", "artifacts"]) mkdirSync(join(state, kind));
    symlinkSync(victim, join(state, "artifacts", "ab".repeat(12)));
    symlinkSync(victim, join(state, "calls", `${"cd".repeat(12)}.trash`));
    symlinkSync(victim, join(state, "sessions", `${"ef".repeat(8)}.trash`));
    writeFileSync(join(state, "calls", `${"01".repeat(12)}.trash`), "x");
    writeFileSync(join(state, "artifacts", `${"23".repeat(12)}.trash`), "x");
    const report = await sweepSessions(state);
    assert.equal(report.failed, 0, report.problems.join("\n"));
    assert.ok(existsSync(join(victim, "keep")));
    assert.ok(existsSync(join(victim, "owner.json")));
  } finally {
    Deno.removeSync(state, { recursive: true });
  }
});
