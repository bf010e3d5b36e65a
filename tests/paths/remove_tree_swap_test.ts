/**
 * removeTreeNoFollow against a process still writing in the tree: a folder swapped for a
 * symlink to a folder of the user's, over and over, while the tree is removed. The user's
 * folder keeps its mode and its contents.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeTreeNoFollow } from "../../lib/paths/remove_tree.ts";

const SWAPPER = `
  const [t, outside] = Deno.args;
  Deno.writeFileSync(t + ".ready", new Uint8Array());
  for (let i = 0; ; i = (i + 1) % 8) {
    const a = t + "/a" + i;
    try { Deno.renameSync(a, a + ".real"); Deno.symlinkSync(outside, a); } catch {}
    try { Deno.removeSync(a); Deno.renameSync(a + ".real", a); } catch {}
  }`;

function plant(t: string): void {
  mkdirSync(t);
  for (let i = 0; i < 8; i++) {
    mkdirSync(`${t}/a${i}/b`, { recursive: true });
    writeFileSync(`${t}/a${i}/b/f`, "x");
    chmodSync(`${t}/a${i}/b`, 0o500); // locked: the remover must unlock it first
  }
}

Deno.test("removeTreeNoFollow: a folder swapped for a symlink mid-removal never reaches its target", async () => {
  const dir = mkdtempSync(join(tmpdir(), "remove-swap-"));
  const t = `${dir}/t`;
  mkdirSync(`${dir}/outside/inner`, { recursive: true });
  writeFileSync(`${dir}/outside/inner/keep`, "keep");
  for (const p of ["outside/inner", "outside"]) chmodSync(`${dir}/${p}`, 0o555);
  plant(t);
  const child = spawn(Deno.execPath(), ["eval", SWAPPER, t, `${dir}/outside`], { stdio: "ignore" });
  try {
    while (!existsSync(`${t}.ready`)) await new Promise((r) => setTimeout(r, 10));
    for (let round = 0; round < 100; round++) {
      await removeTreeNoFollow(t).catch(() => {}); // a removal racing the swapper may fail
      assert.equal(lstatSync(`${dir}/outside`).mode & 0o777, 0o555, `round ${round}`);
      assert.equal(lstatSync(`${dir}/outside/inner`).mode & 0o777, 0o555, `round ${round}`);
      assert.ok(existsSync(`${dir}/outside/inner/keep`), `round ${round}`);
      await removeTreeNoFollow(t).catch(() => {});
      // Planted aside and renamed in, so the swapper never redirects the planting itself.
      if (!existsSync(t)) {
        plant(`${t}.new`);
        renameSync(`${t}.new`, t);
      }
    }
  } finally {
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    chmodSync(`${dir}/outside`, 0o700);
    chmodSync(`${dir}/outside/inner`, 0o700);
    await removeTreeNoFollow(t).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});
