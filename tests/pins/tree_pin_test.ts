/**
 * The one-pass directory pin (`tree_pin.ts`): the same digest as an independent reference
 * of the seed's format, nothing followed when the tree changes mid-walk, budgets kept and
 * every descriptor closed.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { resolveDeclaredPath } from "../../lib/pins/declared_path.ts";
import { directoryDigest } from "../../lib/pins/dir_digest.ts";
import { resolvePinOptions } from "../../lib/pins/options.ts";
import { pinPath } from "../../lib/pins/mod.ts";
import { procfsAvailable } from "../../lib/pins/proc_fd.ts";
import { treeDigestLines } from "../../lib/pins/tree_pin.ts";
import { sortByUtf8 } from "../../lib/pins/utf8_order.ts";
import {
  fixtureTree,
  openFds,
  referenceDigest,
  rejectsPin,
  withWorkspace,
  writeTree,
} from "./_helpers.ts";

Deno.test("tree pin: same digest as the reference on empty, nested, unicode, large and linked entries", async () => {
  await withWorkspace(async (root) => {
    fixtureTree(root);
    const want = referenceDigest(`${root}/t`);
    assert.equal(await pinPath(root, "t"), want);
    Deno.chmodSync(`${root}/t/mode/exec`, 0o600);
    assert.equal(await pinPath(root, "t"), want, "a mode change does not change the pin");
  });
});

Deno.test("tree pin: many entries across directories agree with the reference", async () => {
  await withWorkspace(async (root) => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 7; d++) for (let f = 0; f < 60; f++) files[`m/d${d}/f${f}`] = `${d}:${f}\n`;
    writeTree(root, files);
    assert.equal(await pinPath(root, "m"), referenceDigest(`${root}/m`));
  });
});

Deno.test("directoryDigest: one update per piece hashes the same bytes as two per line", () => {
  const names = ["a", "b-c", "b/c", "\u{1F600}", "\uFFFD", "\uD800lone", "x".repeat(70_000), "é"];
  const lines = names.map((rel, i) => ({
    rel,
    kind: (i % 2 === 0 ? "f" : "l") as "f" | "l",
    digest: createHash("sha256").update(rel).digest("hex"),
  }));
  const keyed = lines.map((line) => ({ line, key: Buffer.from(line.rel, "utf8") }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  const h = createHash("sha256");
  for (const { line, key } of keyed) h.update(key).update(`\0${line.kind}\0${line.digest}\n`);
  assert.equal(directoryDigest(lines), h.digest("hex"));
});

Deno.test("sortByUtf8: the order of Buffer.compare, with and without characters past U+D7FF", () => {
  const pool = ["a", "B", "-", "/", "é", "\u{1F600}", "\uFF21", "\uFFFD", "\u0800", "z"];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (const plainOnly of [true, false]) {
    const chars = plainOnly ? pool.filter((c) => c.charCodeAt(0) < 0xd800) : pool;
    const items = Array.from(
      { length: 200 },
      () => Array.from({ length: 1 + (next() % 4) }, () => chars[next() % chars.length]).join(""),
    );
    const want = [...items].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    assert.deepEqual(sortByUtf8([...items], (s) => s), want);
  }
});

/** A folder whose walk pauses (after 256 entries) while entries are still to come. */
function pausingTree(root: string, dir: string, prefix: string): void {
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) files[`${dir}/${prefix}${String(i).padStart(3, "0")}`] = `${i}`;
  writeTree(root, files);
}

Deno.test("tree pin: a folder swapped for a symlink mid-walk is not followed", async () => {
  if (!procfsAvailable()) {
    console.log("SKIP mid-walk folder swap: no /proc/self/fd (entries are opened by path)");
    return;
  }
  await withWorkspace(async (root) => {
    pausingTree(root, "d/sub", "s"); // the walk is inside d/sub when it pauses
    pausingTree(root, "outside", "s");
    writeTree(root, { "outside/s299": "not what was pinned" });
    const pristine = referenceDigest(`${root}/d`);
    const target = await resolveDeclaredPath(root, "d");
    let swapped = false;
    const lines = await treeDigestLines(target, "d", resolvePinOptions(), () => {
      if (!swapped) {
        Deno.renameSync(`${root}/d/sub`, `${root}/moved`);
        Deno.symlinkSync("../outside", `${root}/d/sub`);
        swapped = true;
      }
      return Promise.resolve();
    });
    assert.ok(swapped, "the walk paused");
    assert.equal(directoryDigest(lines), pristine, "read from the folder that was opened");
  });
});

Deno.test("tree pin: an entry swapped for a symlink before it is opened fails, unfollowed", async () => {
  for (const swap of ["zdir", "zfile"]) {
    await withWorkspace(async (root) => {
      pausingTree(root, "d", "f"); // d/f000..f299 come before d/zdir and d/zfile
      writeTree(root, { "d/zdir/inner": "in", "d/zfile": "file", "outside/inner": "secret" });
      const target = await resolveDeclaredPath(root, "d");
      let swapped = false;
      const run = treeDigestLines(target, "d", resolvePinOptions(), () => {
        if (!swapped) {
          Deno.renameSync(`${root}/d/${swap}`, `${root}/moved`);
          Deno.symlinkSync(
            swap === "zdir" ? "../outside" : "../outside/inner",
            `${root}/d/${swap}`,
          );
          swapped = true;
        }
        return Promise.resolve();
      });
      await rejectsPin(run, {
        root,
        declared: "d",
        reason: new RegExp(`entry "d/${swap}" is a symlink`),
        secrets: ["secret"],
      });
    });
  }
});

Deno.test("tree pin: a file swapped for a FIFO or a folder before it is opened fails the after-open check", async () => {
  for (const swap of ["fifo", "folder"]) {
    await withWorkspace(async (root) => {
      pausingTree(root, "d", "f"); // d/f000..f299 come before d/zfile
      writeTree(root, { "d/zfile": "file" });
      const before = openFds(root);
      const target = await resolveDeclaredPath(root, "d");
      let swapped = false;
      const run = treeDigestLines(target, "d", resolvePinOptions(), async () => {
        if (swapped) return;
        swapped = true;
        Deno.removeSync(`${root}/d/zfile`); // listed as a file, something else when opened
        if (swap === "folder") Deno.mkdirSync(`${root}/d/zfile`);
        else {
          const out = await new Deno.Command("mkfifo", { args: [`${root}/d/zfile`] }).output();
          assert.ok(out.success, "mkfifo failed");
        }
      });
      await rejectsPin(run, {
        root,
        declared: "d",
        reason: /entry "d\/zfile" is no longer a regular file/,
      });
      assert.ok(swapped);
      assert.equal(openFds(root), before, `descriptors after the ${swap} swap`);
    });
  }
});

Deno.test("tree pin: the pinned folder itself replaced after it was resolved fails", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "d/a": "1", "other/a": "1" });
    const target = await resolveDeclaredPath(root, "d");
    Deno.renameSync(`${root}/d`, `${root}/d-old`);
    Deno.symlinkSync("other", `${root}/d`);
    await rejectsPin(treeDigestLines(target, "d", resolvePinOptions()), {
      root,
      declared: "d",
      reason: /is a symlink/,
    });
    Deno.removeSync(`${root}/d`);
    Deno.renameSync(`${root}/other`, `${root}/d`); // a real folder, but not the one resolved
    await rejectsPin(treeDigestLines(target, "d", resolvePinOptions()), {
      root,
      declared: "d",
      reason: /changed while it was being pinned/,
    });
  });
});

Deno.test("tree pin: budgets hold with large files hashed after the walk", async () => {
  await withWorkspace(async (root) => {
    const big = "b".repeat(300_000);
    writeTree(root, { "d/a": big, "d/b": big, "d/c": "c" });
    assert.equal((await pinPath(root, "d", { maxBytes: 600_001 })).length, 64);
    await rejectsPin(pinPath(root, "d", { maxBytes: 600_000 }), {
      root,
      declared: "d",
      reason: /more than 600000 bytes of file data/,
    });
    assert.equal((await pinPath(root, "d", { maxEntries: 3 })).length, 64);
    await rejectsPin(pinPath(root, "d", { maxEntries: 2 }), {
      root,
      reason: /more than 2 entries/,
    });
  });
});

Deno.test("tree pin: a large file changed between the walk and its hashing fails", async () => {
  await withWorkspace(async (root) => {
    pausingTree(root, "d", "f");
    writeTree(root, { "d/big": "b".repeat(300_000) });
    const target = await resolveDeclaredPath(root, "d");
    let swapped = false;
    const run = treeDigestLines(target, "d", resolvePinOptions(), () => {
      if (!swapped) {
        // Walked already ("big" sorts before "f000"), hashed only after the walk.
        Deno.renameSync(`${root}/d/big`, `${root}/old-big`);
        writeTree(root, { "d/big": "c".repeat(300_000) });
        swapped = true;
      }
      return Promise.resolve();
    });
    await rejectsPin(run, { root, declared: "d", reason: /entry "d\/big" changed while/ });
  });
});

Deno.test("tree pin: no descriptor is left open after success or failure", async () => {
  if (!procfsAvailable()) {
    console.log("SKIP descriptor count: no /proc/self/fd");
    return;
  }
  await withWorkspace(async (root) => {
    // Deep enough to hold more folders than one walk keeps descriptors for.
    let deep = "d";
    for (let i = 0; i < 80; i++) {
      deep += `/n${i}`;
      writeTree(root, { [`${deep}/z-after`]: `${i}` }); // keeps every level unfinished
    }
    writeTree(root, { "d/big": "b".repeat(300_000) });
    const before = openFds(root);
    assert.equal(await pinPath(root, "d"), referenceDigest(`${root}/d`));
    assert.equal(openFds(root), before, "after success");
    await rejectsPin(pinPath(root, "d", { maxEntries: 40 }), { root, reason: /more than 40/ });
    assert.equal(openFds(root), before, "after the entry limit");
    await rejectsPin(pinPath(root, "d", { maxBytes: 10 }), { root, reason: /more than 10 bytes/ });
    assert.equal(openFds(root), before, "after the byte limit");
    Deno.symlinkSync("/dev/null", `${root}/${deep}/link`);
    const fifo = await new Deno.Command("mkfifo", { args: [`${root}/${deep}/pipe`] }).output();
    assert.ok(fifo.success);
    await rejectsPin(pinPath(root, "d"), { root, reason: /is a special file \(FIFO\)/ });
    assert.equal(openFds(root), before, "after a special file");
  });
});
