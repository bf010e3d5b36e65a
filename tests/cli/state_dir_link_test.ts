/**
 * A state directory reached through a symlink (say, one committed in a cloned
 * repository as `.toolhost/state`) is refused by `toolhost sweep` and `serve` before
 * they sweep anything, as `Registry.open` refuses it: a sweep must never clean, or
 * signal the groups recorded in, some other folder the link leads to.
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { runCapture } from "../helpers/cli.ts";
import { BASE_FILES, BASE_TOML, withWorkspace } from "../helpers/workspace.ts";

Deno.test("toolhost sweep refuses a state directory that is a symlink, touching nothing", async () => {
  const victim = Deno.makeTempDirSync({ prefix: "toolhost-victim-" });
  try {
    fs.mkdirSync(path.join(victim, "sessions", "s1"), { recursive: true });
    fs.mkdirSync(path.join(victim, "calls", "c1"), { recursive: true });
    await withWorkspace(BASE_TOML, BASE_FILES, async (root) => {
      fs.mkdirSync(path.join(root, ".toolhost"), { recursive: true });
      fs.symlinkSync(victim, path.join(root, ".toolhost", "state"));
      const r = await runCapture(["sweep", "--repo", root]);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, /\.toolhost\/state.*symlink/);
      assert.equal(r.out, "");
    });
    assert.deepEqual(fs.readdirSync(victim).sort(), ["calls", "sessions"]);
    assert.deepEqual(fs.readdirSync(path.join(victim, "sessions")), ["s1"]);
    assert.deepEqual(fs.readdirSync(path.join(victim, "calls")), ["c1"]);
  } finally {
    fs.rmSync(victim, { recursive: true, force: true });
  }
});
