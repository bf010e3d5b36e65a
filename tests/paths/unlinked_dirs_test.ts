/**
 * `makeUnlinkedDirsSync` (the artifact store's `artifacts/<id>/<tool>`, made before every
 * command-tool call) and `claimOwnedDir` (its owner record): a repository can ship any of
 * those names as a symlink, and neither may ever be followed.
 *
 * @module
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import { join } from "node:path";
import { makeUnlinkedDirsSync } from "../../lib/paths/unlinked_dirs.ts";
import { PreparationFailed } from "../../lib/errors/errors.ts";
import { claimOwnedDir } from "../../lib/process/call_dirs.ts";

function withRoot(fn: (root: string, outside: string) => void): void {
  const root = Deno.makeTempDirSync({ prefix: "toolhost-unlinked-" });
  const outside = Deno.makeTempDirSync({ prefix: "toolhost-unlinked-outside-" });
  try {
    fn(root, outside);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  }
}

Deno.test("makeUnlinkedDirsSync makes the missing levels with the mode, keeps real folders", () => {
  withRoot((root) => {
    const dir = join(root, "state/artifacts/app/tool");
    makeUnlinkedDirsSync(dir, 3, 0o700);
    for (
      const d of ["state", "state/artifacts", "state/artifacts/app", "state/artifacts/app/tool"]
    ) {
      const st = fs.lstatSync(join(root, d));
      assert.ok(st.isDirectory(), d);
      assert.equal(st.mode & 0o777, 0o700, d);
    }
    fs.writeFileSync(join(dir, "kept"), "x");
    makeUnlinkedDirsSync(dir, 3, 0o700); // existing folders are kept as they are
    assert.equal(fs.readFileSync(join(dir, "kept"), "utf8"), "x");
  });
});

Deno.test("makeUnlinkedDirsSync refuses a symlink or a file at every level, follows none", () => {
  for (const level of ["artifacts", "artifacts/app", "artifacts/app/tool"]) {
    for (const kind of ["symlink", "file"] as const) {
      withRoot((root, outside) => {
        const state = join(root, "state");
        fs.mkdirSync(join(state, level, ".."), { recursive: true });
        if (kind === "symlink") fs.symlinkSync(outside, join(state, level));
        else fs.writeFileSync(join(state, level), "");
        assert.throws(
          () => makeUnlinkedDirsSync(join(state, "artifacts/app/tool"), 3, 0o700),
          (e) => e instanceof PreparationFailed && !e.message.includes(root),
          `${kind} at ${level}`,
        );
        assert.deepEqual(fs.readdirSync(outside), [], `nothing made through the ${kind}`);
      });
    }
  }
});

Deno.test("claimOwnedDir writes this process's record once, never through a symlink", () => {
  withRoot((root, outside) => {
    claimOwnedDir(root);
    const record = join(root, "owner.json");
    assert.equal(JSON.parse(fs.readFileSync(record, "utf8")).pid, Deno.pid);
    fs.writeFileSync(record, '{"pid":1}\n');
    claimOwnedDir(root); // a record that exists is left as it is
    assert.equal(fs.readFileSync(record, "utf8"), '{"pid":1}\n');
    fs.rmSync(record);
    fs.symlinkSync(join(outside, "target.json"), record); // dangling: a create would follow it
    claimOwnedDir(root);
    assert.ok(fs.lstatSync(record).isSymbolicLink());
    assert.deepEqual(fs.readdirSync(outside), []);
  });
});
