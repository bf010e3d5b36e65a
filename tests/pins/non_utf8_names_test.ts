import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { pinPath } from "../../lib/pins/mod.ts";
import { snapshotPath } from "../../lib/pins/pin_snapshot.ts";
import { PreparationFailed } from "../../lib/errors/errors.ts";
import { withWorkspace, writeTree } from "./_helpers.ts";

/** Make `tools/a<0xff>` (a file) and `tools/sub/d<0xfe>` (a folder) under `root`. */
function plantNonUtf8(root: string): void {
  execFileSync("/bin/sh", [
    "-c",
    `printf x > "$1/tools/a$(printf '\\377')"; mkdir "$1/tools/sub/d$(printf '\\376')"`,
    "sh",
    root,
  ]);
}

const NOT_UTF8 = /is missing, or its name is not valid UTF-8 and cannot be opened to pin it/;

async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (e) {
    assert.ok(e instanceof PreparationFailed, String(e));
    return e.message;
  }
  throw new Error("pinning a folder with a name that is not UTF-8 succeeded");
}

Deno.test("pins: a name that is not UTF-8 fails closed and the message says why", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "tools/run": "#!/bin/sh\n", "tools/sub/ok": "y" });
    plantNonUtf8(root);
    for (const declared of ["tools", "tools/sub"]) {
      // both walks: pinPath's tree walk and the lock's snapshot walk
      for (const run of [() => pinPath(root, declared), () => snapshotPath(root, declared)]) {
        const message = await refusal(run);
        assert.match(message, NOT_UTF8);
        assert.match(message, new RegExp(`"${declared}/`));
      }
    }
  });
});

Deno.test("pins: a missing entry with a valid name is still just missing", async () => {
  const { describeFsError } = await import("../../lib/pins/failure.ts");
  const gone = { code: "ENOENT" };
  assert.equal(describeFsError(gone, 'entry "t/a"', "a"), 'entry "t/a" is missing');
  assert.match(describeFsError(gone, 'entry "t/a\uFFFD"', "a\uFFFD"), NOT_UTF8);
  assert.match(describeFsError({ code: "EACCES" }, "it", "a\uFFFD"), /permission denied/);
});
