/**
 * The helpers toolhost runs outside every sandbox and limit — `bwrap`, `nsenter`,
 * `prlimit` — are taken from the system's program folders before `PATH`: a `PATH` folder
 * that a `write`-confined tool can write (a workspace `bin/` someone put on `PATH`) must
 * not let it plant a `prlimit` or `bwrap` that the next call runs on the host, unconfined.
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { findExecutable } from "../../lib/sandbox/detect.ts";
import { findPrlimit } from "../../lib/limits/rlimit.ts";

Deno.test("bwrap, nsenter and prlimit come from the system folders before PATH", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolhost_planted_" });
  try {
    for (const name of ["bwrap", "nsenter", "prlimit"]) {
      await Deno.writeTextFile(`${dir}/${name}`, "#!/bin/sh\necho planted\n", { mode: 0o755 });
      await Deno.chmod(`${dir}/${name}`, 0o755);
    }
    const path = `${dir}:/usr/bin:/bin`;
    for (const name of ["bwrap", "nsenter"]) {
      const system = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"].map((d) => `${d}/${name}`)
        .find((p) => existsSync(p));
      if (system === undefined) continue; // not installed here: PATH is all there is
      assert.equal(findExecutable(name, path), system);
    }
    if (existsSync("/usr/bin/prlimit")) assert.equal(findPrlimit(path), "/usr/bin/prlimit");
    // Absent from the system folders, PATH still finds a program.
    await Deno.writeTextFile(`${dir}/toolhost-only-here`, "#!/bin/sh\n", { mode: 0o755 });
    await Deno.chmod(`${dir}/toolhost-only-here`, 0o755);
    assert.equal(findExecutable("toolhost-only-here", path), `${dir}/toolhost-only-here`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
