import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { lstat } from "node:fs/promises";
import { pinPath } from "../../lib/pins/mod.ts";
import { hashRegularFile } from "../../lib/pins/hash_file.ts";
import { mkfifo, rejectsPin, withWorkspace, writeTree } from "./_helpers.ts";

const ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

Deno.test("pinPath: a file pins to SHA-256 of its bytes (known vector)", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "tools/abc": "abc", "empty": "" });
    assert.equal(await pinPath(root, "tools/abc"), ABC);
    assert.equal(await pinPath(root, "empty"), EMPTY);
  });
});

Deno.test("pinPath: files larger than one read buffer hash correctly", async () => {
  await withWorkspace(async (root) => {
    // The sync path ends at 256 KiB; async reads use 4 MiB buffers: below, at and above each.
    const sizes = [
      256 * 1024 - 1,
      256 * 1024,
      256 * 1024 + 1,
      4 * 1024 * 1024 - 1,
      4 * 1024 * 1024,
    ];
    for (const size of [...sizes, 4 * 1024 * 1024 + 1, 8 * 1024 * 1024 + 7]) {
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i += 4096) bytes[i] = (i / 4096) & 0xff;
      Deno.writeFileSync(`${root}/big`, bytes);
      const want = createHash("sha256").update(bytes).digest("hex");
      assert.equal(await pinPath(root, "big"), want);
    }
  });
});

Deno.test("pinPath: a content change changes the digest", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "tools/run": "#!/bin/sh\necho 1\n" });
    const before = await pinPath(root, "tools/run");
    writeTree(root, { "tools/run": "#!/bin/sh\necho 2\n" });
    assert.notEqual(await pinPath(root, "tools/run"), before);
  });
});

Deno.test("pinPath: invalid declared paths are refused without echoing absolute paths", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "a/b": "x" });
    const bad: [string, RegExp][] = [
      ["", /empty/],
      ["a/../a/b", /`\.` and `\.\.`/],
      ["../a/b", /`\.` and `\.\.`/],
      ["./a/b", /`\.` and `\.\.`/],
      ["a/./b", /`\.` and `\.\.`/],
      ["a//b", /empty component/],
      ["a/b/", /empty component/],
      ["a\\b", /contains `\\`/],
      ["a/b\0", /NUL/],
    ];
    for (const [declared, reason] of bad) {
      await rejectsPin(pinPath(root, declared), { root, reason });
    }
    const abs = `${root}/a/b`;
    const e = await rejectsPin(pinPath(root, abs), { root, reason: /relative to the workspace/ });
    assert.ok(!e.message.includes("/a/b"));
    await rejectsPin(pinPath(root, "C:/a/b"), { root, reason: /relative to the workspace/ });
  });
});

Deno.test("pinPath: a missing path fails", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "a/file": "x" });
    await rejectsPin(pinPath(root, "nope"), { root, declared: "nope", reason: /it is missing/ });
    await rejectsPin(pinPath(root, "nope/deeper"), {
      root,
      declared: "nope/deeper",
      reason: /component "nope" is missing/,
    });
    await rejectsPin(pinPath(root, "a/file/x"), {
      root,
      declared: "a/file/x",
      reason: /component "file" is not a directory/,
    });
  });
});

Deno.test("pinPath: a symlink in any declared component fails", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "real/tool": "x" });
    Deno.symlinkSync("real", `${root}/linkdir`);
    Deno.symlinkSync("real/tool", `${root}/linkfile`);
    Deno.symlinkSync("tool", `${root}/real/toollink`);
    await rejectsPin(pinPath(root, "linkdir/tool"), {
      root,
      declared: "linkdir/tool",
      reason: /component "linkdir" is a symlink/,
    });
    await rejectsPin(pinPath(root, "linkfile"), { root, reason: /it is a symlink/ });
    await rejectsPin(pinPath(root, "real/toollink"), { root, reason: /it is a symlink/ });
    await rejectsPin(pinPath(root, "linkdir"), { root, reason: /it is a symlink/ });
    assert.equal((await pinPath(root, "real/tool")).length, 64);
  });
});

Deno.test("pinPath: a FIFO fails without blocking (declared or inside a directory)", async () => {
  await withWorkspace(async (root) => {
    Deno.mkdirSync(`${root}/d/sub`, { recursive: true });
    await mkfifo(`${root}/pipe`);
    await mkfifo(`${root}/d/sub/pipe`);
    await rejectsPin(pinPath(root, "pipe"), { root, declared: "pipe", reason: /special.*FIFO/ });
    await rejectsPin(pinPath(root, "d"), {
      root,
      declared: "d",
      reason: /entry "d\/sub\/pipe" is a special file \(FIFO\)/,
    });
  });
});

Deno.test("hashRegularFile: a FIFO swapped in after lstat is refused, not read", async () => {
  await withWorkspace(async (root) => {
    // Small files take the sync path, large ones the async path: check both.
    for (const size of [3, 1024 * 1024]) {
      Deno.writeFileSync(`${root}/f`, new Uint8Array(size));
      const expected = await lstat(`${root}/f`, { bigint: true });
      Deno.removeSync(`${root}/f`);
      await mkfifo(`${root}/f`); // no writer: a blocking open would hang
      await assert.rejects(hashRegularFile(`${root}/f`, expected), /no longer a regular file/);
      Deno.removeSync(`${root}/f`);
    }
  });
});

Deno.test("pinPath: a socket inside a directory fails", async () => {
  await withWorkspace(async (root) => {
    Deno.mkdirSync(`${root}/d`);
    const listener = Deno.listen({ transport: "unix", path: `${root}/d/sock` });
    try {
      await rejectsPin(pinPath(root, "d"), {
        root,
        reason: /"d\/sock" is a special file \(socket\)/,
      });
    } finally {
      listener.close();
    }
  });
});

Deno.test("pinPath: messages never contain file contents", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "tools/secret": "SECRET-CONTENT-123" });
    await rejectsPin(pinPath(root, "tools/secret", { maxBytes: 3 }), {
      root,
      declared: "tools/secret",
      reason: /more than 3 bytes/,
      secrets: ["SECRET-CONTENT-123"],
    });
  });
});

Deno.test("pinPath: invalid budgets are programmer errors", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "f": "x" });
    await assert.rejects(pinPath(root, "f", { maxBytes: -1 }), RangeError);
    await assert.rejects(pinPath(root, "f", { maxEntries: 0 }), RangeError);
    await assert.rejects(pinPath(root, "f", { maxBytes: 1.5 }), RangeError);
  });
});

Deno.test("hashRegularFile: a file replaced or resized after lstat is refused", async () => {
  await withWorkspace(async (root) => {
    for (const size of [3, 1024 * 1024]) {
      Deno.writeFileSync(`${root}/f`, new Uint8Array(size));
      const expected = await lstat(`${root}/f`, { bigint: true });
      assert.equal((await hashRegularFile(`${root}/f`, expected)).length, 64);
      Deno.writeFileSync(`${root}/f`, new Uint8Array(size + 1)); // same inode, new size
      await assert.rejects(hashRegularFile(`${root}/f`, expected), /changed while/);
      Deno.writeFileSync(`${root}/g`, new Uint8Array(size));
      Deno.renameSync(`${root}/g`, `${root}/f`); // same size, new inode
      await assert.rejects(hashRegularFile(`${root}/f`, expected), /changed while/);
    }
  });
});
