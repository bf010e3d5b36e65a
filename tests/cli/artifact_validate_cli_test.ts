/**
 * `toolhost artifact validate FILE` with a FILE it cannot read: exit 2, naming the file and why.
 */

import assert from "node:assert/strict";
import { runCapture } from "../helpers/cli.ts";

Deno.test("artifact validate: a missing envelope file is named, with its errno", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await runCapture(["artifact", "validate", "--root", dir, `${dir}/nope.json`]);
    assert.equal(r.code, 2);
    assert.equal(r.out, "");
    assert.equal(
      r.err,
      `toolhost: cannot read the envelope file \`${dir}/nope.json\` (ENOENT) [INVALID_INVOCATION]\n`,
    );
    const isDir = await runCapture(["artifact", "validate", "--root", dir, dir]);
    assert.equal(isDir.code, 2);
    assert.match(isDir.err, /^toolhost: cannot read the envelope file `.*` \(EISDIR\) /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
