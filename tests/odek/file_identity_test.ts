/** TOCTOU guards: the hashed file must be the one that was checked. */

import assert from "node:assert/strict";
import { openSameFile, readExactly } from "../../lib/odek/mod.ts";

async function identity(p: string) {
  const st = await Deno.lstat(p);
  return { dev: BigInt(st.dev), ino: BigInt(st.ino!), size: st.size };
}

async function withDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek_id_" }));
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("openSameFile accepts the checked file", () =>
  withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/f`, "abc");
    const fh = await openSameFile(`${dir}/f`, await identity(`${dir}/f`));
    const seen: number[] = [];
    await readExactly(fh, 3, (c) => seen.push(c.length));
    await fh.close();
    assert.deepEqual(seen, [3]);
  }));

Deno.test("a file replaced after the check is refused (inode differs)", () =>
  withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/f`, "abc");
    const id = await identity(`${dir}/f`);
    await Deno.writeTextFile(`${dir}/g`, "xyz");
    await Deno.rename(`${dir}/g`, `${dir}/f`);
    await assert.rejects(openSameFile(`${dir}/f`, id), { name: "FileChangedError" });
  }));

Deno.test("a file whose size changed after the check is refused", () =>
  withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/f`, "abc");
    const id = await identity(`${dir}/f`);
    await Deno.writeTextFile(`${dir}/f`, "d", { append: true });
    await assert.rejects(openSameFile(`${dir}/f`, id), { name: "FileChangedError" });
  }));

Deno.test("a final component swapped for a symlink is refused (O_NOFOLLOW)", () =>
  withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/f`, "abc");
    const id = await identity(`${dir}/f`);
    await Deno.rename(`${dir}/f`, `${dir}/real`);
    await Deno.symlink(`${dir}/real`, `${dir}/f`);
    await assert.rejects(openSameFile(`${dir}/f`, id), { name: "FileChangedError" });
  }));

Deno.test("a FIFO swapped in is refused without blocking", () =>
  withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/f`, "abc");
    const id = await identity(`${dir}/f`);
    await Deno.remove(`${dir}/f`);
    const mk = await new Deno.Command("mkfifo", { args: [`${dir}/f`] }).output();
    assert.ok(mk.success);
    await assert.rejects(openSameFile(`${dir}/f`, id), { name: "FileChangedError" });
  }));

Deno.test("readExactly refuses a file that grew or shrank after fstat", () =>
  withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/f`, "abcdef");
    for (const [expect, ok] of [[5, false], [6, true], [7, false]] as const) {
      const fh = await openSameFile(`${dir}/f`, { ...(await identity(`${dir}/f`)) });
      try {
        const run = readExactly(fh, expect, () => {});
        if (ok) await run;
        else await assert.rejects(run, { name: "FileChangedError" });
      } finally {
        await fh.close();
      }
    }
  }));

Deno.test("a directory component swapped for a symlink is refused (same inode reached)", () =>
  withDir(async (dir) => {
    await Deno.mkdir(`${dir}/real`);
    await Deno.writeTextFile(`${dir}/real/f`, "abc");
    const id = await identity(`${dir}/real/f`);
    // As after a swap: the checked path now reaches the same inode through a symlink.
    await Deno.symlink(`${dir}/real`, `${dir}/swapped`);
    await assert.rejects(openSameFile(`${dir}/swapped/f`, id), { name: "FileChangedError" });
    const fh = await openSameFile(`${dir}/real/f`, id);
    await fh.close();
  }));
