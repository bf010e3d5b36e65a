/**
 * A child toolhost spawned that ended but is not reaped yet stays its own, however many
 * children are noted: pruning the notes never turns it into an "adopted orphan" that the
 * subreaper would reap under the runtime's feet (serve --http died of `ECHILD` with 200
 * sessions open, more than 256 noted children).
 */

import assert from "node:assert/strict";

Deno.test("adopted: an ended, unreaped child of toolhost is never taken for an orphan", async () => {
  const fixture = new URL("../fixtures/process/own_zombie_host.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", fixture],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const r = JSON.parse(text.split("\n").pop()!);
  if (r.skipped) return; // no prctl here: nothing is adopted at all
  assert.equal(r.zombie, true, "the child was seen ended and unreaped");
  assert.equal(r.listed, false, "the ended child was listed as an adopted orphan");
});
