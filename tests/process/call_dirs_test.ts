import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callsRoot, createCallDirs } from "../../lib/process/call_dirs.ts";
import { assertNoCallDirs, withStateDir } from "./helpers.ts";

Deno.test("call dirs are private, canonical and below <stateDir>/calls", async () => {
  await withStateDir(async (stateDir) => {
    const a = await createCallDirs(stateDir);
    const b = await createCallDirs(stateDir);
    try {
      assert.notEqual(a.root, b.root);
      assert.equal(a.root, realpathSync(a.root));
      assert.ok(a.root.startsWith(realpathSync(callsRoot(stateDir)) + "/"));
      assert.equal(a.outputDir, join(a.root, "output"));
      assert.equal(a.tmpDir, join(a.root, "tmp"));
      for (const d of [a.root, a.outputDir, a.tmpDir]) {
        assert.equal(statSync(d).mode & 0o777, 0o700, d);
      }
    } finally {
      await a.remove();
      await b.remove();
    }
  });
});

Deno.test("removal never follows symlinks and is idempotent", async () => {
  const outside = mkdtempSync(join(tmpdir(), "toolhost-outside-"));
  try {
    writeFileSync(join(outside, "keep.txt"), "keep");
    await withStateDir(async (stateDir) => {
      const dirs = await createCallDirs(stateDir);
      symlinkSync(outside, join(dirs.outputDir, "link"));
      symlinkSync(join(outside, "keep.txt"), join(dirs.tmpDir, "file-link"));
      await dirs.remove();
      await dirs.remove();
      assert.equal(existsSync(dirs.root), false);
    });
    assert.equal(readFileSync(join(outside, "keep.txt"), "utf8"), "keep");
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});

Deno.test("removal restores permissions a tool took away", async () => {
  await withStateDir(async (stateDir) => {
    const dirs = await createCallDirs(stateDir);
    const deep = join(dirs.tmpDir, "cache", "mod");
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, "f"), "x");
    chmodSync(deep, 0o500);
    chmodSync(join(dirs.tmpDir, "cache"), 0o000);
    chmodSync(dirs.outputDir, 0o500);
    await dirs.remove();
    assert.equal(existsSync(dirs.root), false);
    assertNoCallDirs(stateDir);
  });
});

Deno.test("a symlinked `calls` folder is refused", async () => {
  await withStateDir(async (stateDir) => {
    const elsewhere = mkdtempSync(join(tmpdir(), "toolhost-elsewhere-"));
    try {
      symlinkSync(elsewhere, join(stateDir, "calls"));
      await assert.rejects(createCallDirs(stateDir), /not a directory/);
    } finally {
      rmSync(join(stateDir, "calls"));
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

Deno.test("a `calls` folder removed between calls is re-created", async () => {
  await withStateDir(async (stateDir) => {
    const a = await createCallDirs(stateDir);
    await a.remove();
    rmSync(callsRoot(stateDir), { recursive: true });
    const b = await createCallDirs(stateDir);
    assert.ok(existsSync(b.outputDir));
    await b.remove();
  });
});
