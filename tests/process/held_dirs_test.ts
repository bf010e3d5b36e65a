import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { holdDir, releaseDirs, releaseHeldDirs } from "../../lib/process/held_dirs.ts";
import { createCallDirs } from "../../lib/process/call_dirs.ts";
import { withStateDir } from "./helpers.ts";

function withTemp(body: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-held-"));
  return Promise.resolve(body(dir)).finally(() => rmSync(dir, { recursive: true, force: true }));
}

Deno.test("a held directory is removed at once; its descriptor is released after", async () => {
  await withTemp((dir) => {
    const d = join(dir, "d");
    mkdirSync(d);
    const fd = holdDir(d);
    assert.equal(typeof fd, "number");
    rmdirSync(d);
    assert.equal(existsSync(d), false);
    // Nothing can be created in a removed directory, even through the held one.
    assert.throws(() => writeFileSync(`/proc/self/fd/${fd}/x`, "x"));
    releaseDirs([fd]);
    releaseHeldDirs();
    assert.throws(() => readlinkSync(`/proc/self/fd/${fd}`), /ENOENT/);
  });
});

Deno.test("holdDir never follows a symlink nor opens a FIFO", async () => {
  await withTemp((dir) => {
    const target = join(dir, "target");
    mkdirSync(target);
    symlinkSync(target, join(dir, "link"));
    execFileSync("mkfifo", [join(dir, "fifo")]);
    writeFileSync(join(dir, "file"), "x");
    for (const name of ["link", "fifo", "file", "missing"]) {
      assert.equal(holdDir(join(dir, name)), undefined, name);
    }
  });
});

Deno.test("a removed call's directories are gone before remove() resolves", async () => {
  await withStateDir(async (stateDir) => {
    const dirs = await createCallDirs(stateDir);
    await dirs.remove();
    for (const d of [dirs.outputDir, dirs.tmpDir, dirs.root]) assert.equal(existsSync(d), false);
    releaseHeldDirs();
  });
});
