/**
 * `deno task bench --help` answers with the options and every section, and runs nothing.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { SECTIONS } from "../../bench/run.ts";

const RUN = fileURLToPath(new URL("../../bench/run.ts", import.meta.url));

Deno.test("bench --help prints the options and every section, exit 0, nothing run", async () => {
  for (const flag of ["--help", "-h"]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", RUN, flag],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.match(stdout, /^usage: deno task bench \[--only NAME\]/);
    for (const s of SECTIONS) assert.ok(stdout.includes(s.name), `section ${s.name} missing`);
    assert.ok(!stdout.includes("anchors:"), "it started a run");
  }
});
