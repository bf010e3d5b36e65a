import assert from "node:assert/strict";
import fs from "node:fs";
import { spawn } from "node:child_process";
import { MAX_UNLOCK_DEPTH, unlockTree } from "../../lib/paths/unlock_tree.ts";

function modeOf(p: string): number {
  return fs.lstatSync(p).mode & 0o777;
}

Deno.test("unlockTree: every folder of a locked tree gets the owner mode", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    fs.mkdirSync(`${dir}/t/a/b/c`, { recursive: true });
    fs.mkdirSync(`${dir}/t/d`);
    fs.writeFileSync(`${dir}/t/a/f`, "x", { mode: 0o400 });
    for (const p of ["t/a/b/c", "t/a/b", "t/a", "t/d", "t"]) fs.chmodSync(`${dir}/${p}`, 0);
    await unlockTree(`${dir}/t`);
    for (const p of ["t", "t/a", "t/a/b", "t/a/b/c", "t/d"]) {
      assert.equal(modeOf(`${dir}/${p}`), 0o700, p);
    }
    assert.equal(modeOf(`${dir}/t/a/f`), 0o400, "files are left as they are");
  } finally {
    await unlockTree(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("unlockTree: a symlink in the tree or at its root is never followed", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    fs.mkdirSync(`${dir}/outside`, { mode: 0o500 });
    fs.chmodSync(`${dir}/outside`, 0o500);
    fs.mkdirSync(`${dir}/t`);
    fs.symlinkSync(`${dir}/outside`, `${dir}/t/link`);
    fs.symlinkSync(`${dir}/outside`, `${dir}/root-link`);
    await unlockTree(`${dir}/t`);
    await unlockTree(`${dir}/root-link`);
    assert.equal(modeOf(`${dir}/outside`), 0o500);
  } finally {
    fs.chmodSync(`${dir}/outside`, 0o700);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("unlockTree: the entry budget and the depth bound hold", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    for (let i = 0; i < 20; i++) fs.mkdirSync(`${dir}/w/d${i}`, { recursive: true });
    const budget = { left: 5 };
    await unlockTree(`${dir}/w`, { budget });
    assert.equal(budget.left, 0);
    let p = `${dir}/deep`;
    fs.mkdirSync(p);
    const levels: string[] = [p];
    for (let i = 0; i < MAX_UNLOCK_DEPTH + 5; i++) {
      p = `${p}/${i % 10}`;
      levels.push(p);
    }
    fs.mkdirSync(p, { recursive: true });
    for (const l of levels) fs.chmodSync(l, 0o750);
    await unlockTree(`${dir}/deep`);
    assert.equal(modeOf(levels[MAX_UNLOCK_DEPTH - 1]), 0o700, "the last level within the bound");
    assert.equal(modeOf(levels[MAX_UNLOCK_DEPTH]), 0o750, "past the bound: left as it is");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// A process still writing in the tree swaps a folder for a symlink to a folder of the
// user's, over and over, while the tree is unlocked: the user's folder must keep its mode.
// (Changing modes by path after an lstat lost this race within a few rounds.)
Deno.test("unlockTree: a folder swapped for a symlink mid-walk never hands over its target", async () => {
  const dir = Deno.makeTempDirSync();
  const swapper = `
    const [t, outside] = Deno.args;
    Deno.writeFileSync(t + "/ready", new Uint8Array());
    for (let i = 0; ; i = (i + 1) % 8) {
      const a = t + "/a" + i;
      try { Deno.renameSync(a, a + ".real"); Deno.symlinkSync(outside, a); } catch {}
      try { Deno.removeSync(a); Deno.renameSync(a + ".real", a); } catch {}
    }`;
  fs.mkdirSync(`${dir}/outside/inner`, { recursive: true });
  for (let i = 0; i < 8; i++) fs.mkdirSync(`${dir}/t/a${i}/b`, { recursive: true });
  for (const p of ["outside/inner", "outside"]) fs.chmodSync(`${dir}/${p}`, 0o555);
  const child = spawn(Deno.execPath(), ["eval", swapper, `${dir}/t`, `${dir}/outside`], {
    stdio: "ignore",
  });
  try {
    while (!fs.existsSync(`${dir}/t/ready`)) await new Promise((r) => setTimeout(r, 10));
    for (let round = 0; round < 400; round++) {
      await unlockTree(`${dir}/t`, { mode: 0o711 });
      assert.equal(modeOf(`${dir}/outside`), 0o555, `round ${round}`);
      assert.equal(modeOf(`${dir}/outside/inner`), 0o555, `round ${round}`);
    }
  } finally {
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    fs.chmodSync(`${dir}/outside`, 0o700);
    fs.chmodSync(`${dir}/outside/inner`, 0o700);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
