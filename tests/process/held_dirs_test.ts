import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  holdDir,
  preferDirCloser,
  releaseDirs,
  releaseHeldDirs,
} from "../../lib/process/held_dirs.ts";
import { copiedCount, dirCloserReady } from "../../lib/process/dir_closer.ts";
import { createCallDirs } from "../../lib/process/call_dirs.ts";
import { withStateDir } from "./helpers.ts";

function withTemp(body: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-held-"));
  return Promise.resolve(body(dir)).finally(() => rmSync(dir, { recursive: true, force: true }));
}

Deno.test("a held directory is removed at once; its descriptor is released after", async () => {
  await withTemp(async (dir) => {
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
    await until(() => openOn(d).length === 0, "the held descriptor is closed");
  });
});

/** Whether descriptor `fd` of this process is open on the removed directory `dir`. */
function holds(fd: number, dir: string): boolean {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === `${dir} (deleted)`;
  } catch {
    return false;
  }
}

/** Descriptors of this process (any thread) still open on the removed directory `dir`. */
function openOn(dir: string): string[] {
  return readdirSync("/proc/self/fd").filter((n) => {
    try {
      return readlinkSync(`/proc/self/fd/${n}`) === `${dir} (deleted)`;
    } catch {
      return false;
    }
  });
}

/** Wait until `cond` holds (at most about a minute: a condition, not a clock). */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(cond(), what);
}

Deno.test("under Deno the helper thread takes the last reference, and closes it", async () => {
  preferDirCloser(); // starts it
  await until(() => dirCloserReady(), "the helper thread is online");
  await withTemp(async (dir) => {
    const before = copiedCount();
    const held = ["a", "b", "c"].map((n) => {
      const d = join(dir, n);
      mkdirSync(d);
      const fd = holdDir(d)!;
      rmdirSync(d);
      return { d, fd };
    });
    releaseDirs(held.map((h) => h.fd));
    await until(() => copiedCount() >= before + 3, "the helper copied all three");
    releaseHeldDirs();
    await until(() => held.every((h) => !holds(h.fd, h.d)), "this thread closed its own");
    await until(() => held.every((h) => openOn(h.d).length === 0), "the helper closed its copies");
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
