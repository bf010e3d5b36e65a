/**
 * The permission flags of deno.json's `compile` task: pinned, justified, and sufficient.
 *
 * - They are `--allow-all`, because Deno grants reads of `/proc/<pid>/stat` (which
 *   process-group supervision needs) only under `--allow-all`. A test proves Deno still
 *   refuses those reads under every narrower set; when it stops refusing, that test fails
 *   and the flags should be narrowed (see scripts/compile.ts).
 * - `deno run <those flags> cli.ts` runs the end-to-end suite of _suite.ts — the runtime
 *   and permissions the compiled binary gets — from a temporary folder with a PATH that
 *   holds neither deno nor node.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { compilePermissions, ROOT } from "../../scripts/compile.ts";
import { registerDistSuite } from "./_suite.ts";

const flags = compilePermissions();

Deno.test("compile permissions: written explicitly in deno.json's compile task", () => {
  assert.deepEqual(flags, ["--allow-all"]);
});

async function procRead(perms: string[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "procread_" });
  try {
    await Deno.writeTextFile(
      join(dir, "probe.ts"),
      'import { readFileSync } from "node:fs";\n' +
        "try { readFileSync(`/proc/${process.pid}/stat`); console.log('read'); }\n" +
        "catch (e) { console.log(String(e).includes('--allow-all') ? 'needs-all' : 'other'); }\n",
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", "--quiet", "--no-prompt", ...perms, join(dir, "probe.ts")],
      env: { NO_COLOR: "1" },
    }).output();
    return new TextDecoder().decode(out.stdout).trim();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "compile permissions: nothing narrower than --allow-all reads /proc/<pid>/stat",
  ignore: process.platform !== "linux",
  fn: async () => {
    const narrow = [
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--allow-env",
      "--allow-net",
      "--allow-sys",
    ];
    assert.equal(await procRead(narrow), "needs-all", "Deno relaxed /proc: narrow the flags");
    assert.equal(await procRead(["--allow-all", "--deny-ffi"]), "needs-all");
    assert.equal(await procRead(flags), "read");
  },
});

const denoDir = Deno.env.get("DENO_DIR") ??
  join(Deno.env.get("HOME") ?? "/root", ".cache", "deno");
registerDistSuite("deno run with the compile permissions", {
  program: Deno.execPath(),
  prefix: [
    "run",
    "--quiet",
    "--no-prompt",
    ...flags,
    `--config=${ROOT}/deno.json`,
    `${ROOT}/cli.ts`,
  ],
  env: { DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: "1" },
});
