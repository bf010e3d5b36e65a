import assert from "node:assert/strict";
import { DEFAULT_PIN_MAX_BYTES, DEFAULT_PIN_MAX_ENTRIES, pinPath } from "../../lib/pins/mod.ts";
import { resolvePinOptions } from "../../lib/pins/options.ts";
import { rejectsPin, withWorkspace, writeTree } from "./_helpers.ts";

const GIB = 1073741824;

Deno.test("budgets: defaults are 1 GiB and 10,000 entries", () => {
  assert.equal(DEFAULT_PIN_MAX_BYTES, GIB);
  assert.equal(DEFAULT_PIN_MAX_ENTRIES, 10_000);
  assert.deepEqual(resolvePinOptions(), { maxBytes: GIB, maxEntries: 10_000 });
});

Deno.test("maxBytes: a file at, below and above the limit", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "f": "0123456789" }); // 10 bytes
    assert.equal((await pinPath(root, "f", { maxBytes: 10 })).length, 64); // at
    assert.equal((await pinPath(root, "f", { maxBytes: 11 })).length, 64); // one below
    await rejectsPin(pinPath(root, "f", { maxBytes: 9 }), { root, reason: /more than 9 bytes/ });
  });
});

Deno.test("maxBytes: a directory's file bytes are summed (symlinks and dirs add nothing)", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "d/a": "0123", "d/sub/b": "456789" }); // 4 + 6 = 10 bytes
    Deno.symlinkSync("a-very-long-target-string-that-is-not-counted", `${root}/d/link`);
    assert.equal((await pinPath(root, "d", { maxBytes: 10 })).length, 64);
    assert.equal((await pinPath(root, "d", { maxBytes: 11 })).length, 64);
    await rejectsPin(pinPath(root, "d", { maxBytes: 9 }), {
      root,
      declared: "d",
      reason: /more than 9 bytes of file data/,
    });
  });
});

Deno.test("maxBytes default: a sparse file of 1 GiB + 1 fails (by size, before hashing)", async () => {
  await withWorkspace(async (root) => {
    Deno.writeFileSync(`${root}/huge`, new Uint8Array());
    Deno.truncateSync(`${root}/huge`, GIB + 1);
    await rejectsPin(pinPath(root, "huge"), {
      root,
      declared: "huge",
      reason: /more than 1073741824 bytes/,
    });
    // Also across a directory: 512 MiB + (512 MiB + 1).
    Deno.mkdirSync(`${root}/d`);
    Deno.writeFileSync(`${root}/d/a`, new Uint8Array());
    Deno.truncateSync(`${root}/d/a`, GIB / 2);
    Deno.writeFileSync(`${root}/d/b`, new Uint8Array());
    Deno.truncateSync(`${root}/d/b`, GIB / 2 + 1);
    await rejectsPin(pinPath(root, "d"), { root, declared: "d", reason: /more than 1073741824/ });
  });
});

Deno.test("maxBytes default: a sparse file of exactly 1 GiB pins", async () => {
  // Hashing 1 GiB of holes takes about a second (node:crypto, ~1.3 GB/s on the dev box).
  await withWorkspace(async (root) => {
    Deno.writeFileSync(`${root}/huge`, new Uint8Array());
    Deno.truncateSync(`${root}/huge`, GIB);
    assert.equal(
      await pinPath(root, "huge"),
      "49bc20df15e412a64472421e13fe86ff1c5165e18b2afccf160d4dc19fe68a14",
    );
  });
});

Deno.test("maxEntries: at, below and above with small limits", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "d/1": "", "d/2": "", "d/3": "" });
    assert.equal((await pinPath(root, "d", { maxEntries: 3 })).length, 64); // at
    assert.equal((await pinPath(root, "d", { maxEntries: 4 })).length, 64); // one below
    await rejectsPin(pinPath(root, "d", { maxEntries: 2 }), {
      root,
      declared: "d",
      reason: /more than 2 entries/,
    });
    // A single file is one entry.
    assert.equal((await pinPath(root, "d/1", { maxEntries: 1 })).length, 64);
  });
});

Deno.test("maxEntries: directories do not count, but one found after the limit fails", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "d/1": "", "d/2": "" });
    // Visited before the files (pre-order, sorted): never counted.
    for (let i = 0; i < 20; i++) Deno.mkdirSync(`${root}/d/0empty${i}/x/y`, { recursive: true });
    assert.equal((await pinPath(root, "d", { maxEntries: 2 })).length, 64);
    Deno.mkdirSync(`${root}/d/3dir`); // encountered after both files are retained
    await rejectsPin(pinPath(root, "d", { maxEntries: 2 }), { root, reason: /more than 2/ });
    assert.equal((await pinPath(root, "d", { maxEntries: 3 })).length, 64);
    // A directory's contents come right after it: 0empty0/x/late is encountered third.
    Deno.removeSync(`${root}/d/3dir`);
    Deno.mkdirSync(`${root}/d/0empty0/x/y/late`);
    assert.equal((await pinPath(root, "d", { maxEntries: 2 })).length, 64);
    writeTree(root, { "d/0empty0/x/y/late/f": "" });
    await rejectsPin(pinPath(root, "d", { maxEntries: 2 }), { root, reason: /more than 2/ });
  });
});

Deno.test("maxEntries default: 10,000 files plus many empty dirs pin; a 10,001st entry fails", async () => {
  await withWorkspace(async (root) => {
    const files = `${root}/tools/files`;
    Deno.mkdirSync(files, { recursive: true });
    for (let i = 0; i < 200; i++) {
      Deno.mkdirSync(`${root}/tools/empty${i}/a/b`, { recursive: true });
    }
    for (let i = 0; i < 50; i++) Deno.mkdirSync(`${files}/000dir${i}`); // sort before the files
    for (let i = 0; i < 10_000; i++) {
      Deno.writeTextFileSync(`${files}/f${String(i).padStart(5, "0")}`, String(i));
    }
    assert.equal((await pinPath(root, "tools")).length, 64);

    Deno.mkdirSync(`${files}/zzz`); // the 10,001st entry, an (empty) directory
    await rejectsPin(pinPath(root, "tools"), {
      root,
      declared: "tools",
      reason: /more than 10000 entries/,
    });
    Deno.removeSync(`${files}/zzz`);
    Deno.writeTextFileSync(`${files}/zzz`, "x"); // the 10,001st entry, a file
    await rejectsPin(pinPath(root, "tools"), { root, reason: /more than 10000 entries/ });
    Deno.removeSync(`${files}/zzz`);
    Deno.symlinkSync("f00000", `${files}/zzz`); // the 10,001st entry, a symlink
    await rejectsPin(pinPath(root, "tools"), { root, reason: /more than 10000 entries/ });
  });
});
