/**
 * Directory pins of trees deeper than the directory descriptors one walk holds
 * (`MAX_HELD_DIRS` of `tree_dir_frame.ts`): a folder whose descriptor is not held is still
 * read where the walk listed it, never through a path component swapped for a symlink
 * meanwhile.
 */

import assert from "node:assert/strict";
import { resolveDeclaredPath } from "../../lib/pins/declared_path.ts";
import { directoryDigest } from "../../lib/pins/dir_digest.ts";
import { pinPath } from "../../lib/pins/mod.ts";
import { procfsAvailable } from "../../lib/pins/proc_fd.ts";
import { resolvePinOptions } from "../../lib/pins/options.ts";
import { treeDigestLines } from "../../lib/pins/tree_pin.ts";
import { openFds, referenceDigest, withWorkspace, writeTree } from "./_helpers.ts";

/** Levels of `a/` below `d`: more than the 64 directory descriptors a walk holds. */
const LEVELS = 72;

/**
 * `d/a/a/…/a` (`LEVELS` deep), each level also holding a file `z` listed after `a` (so every
 * level's descriptor is still wanted while the walk is below it), and 400 files at the
 * bottom (so the walk pauses there, past the 256th entry).
 */
function deepTree(root: string, text: string): string {
  const files: Record<string, string> = {};
  let rel = "d";
  for (let i = 0; i < LEVELS; i++) {
    files[`${rel}/z`] = `level ${i}\n`;
    rel += "/a";
  }
  for (let f = 0; f < 400; f++) files[`${rel}/f${String(f).padStart(3, "0")}`] = `${text} ${f}\n`;
  writeTree(root, files);
  return rel;
}

/** The failure message of `run`, or "ok: <digest>". */
async function outcome(run: Promise<string>): Promise<string> {
  try {
    return `ok: ${await run}`;
  } catch (e) {
    return (e as Error).message;
  }
}

Deno.test("deep tree: a folder past the held descriptors is not read through a swapped-in symlink", async () => {
  if (!procfsAvailable()) return console.log("SKIP deep swap: no /proc/self/fd");
  await withWorkspace(async (root) => {
    deepTree(root, "real");
    const real = await pinPath(root, "d");
    // A second tree of the same shape, other contents, outside the pinned folder.
    deepTree(`${root}/elsewhere`, "fake");
    const other = await pinPath(`${root}/elsewhere`, "d");
    const target = await resolveDeclaredPath(root, "d");
    const before = openFds(root);
    let swapped = false;
    const run = treeDigestLines(target, "d", resolvePinOptions(), () => {
      if (!swapped) {
        // The walk is at the bottom, far below the held descriptors: swap a component of
        // its path (d/a/a) for a symlink to the other tree.
        swapped = true;
        Deno.renameSync(`${root}/d/a/a`, `${root}/d/a/moved`);
        Deno.symlinkSync(`${root}/elsewhere/d/a/a`, `${root}/d/a/a`);
      }
      return Promise.resolve();
    }).then(directoryDigest);
    const got = await outcome(run);
    assert.ok(swapped, "the walk paused below the held descriptors");
    assert.notEqual(got, `ok: ${other}`, "the other tree was pinned");
    assert.notEqual(got, `ok: ${real}`, "the tree changed mid-walk and was pinned anyway");
    assert.match(got, /cannot be pinned: entry "d(\/a)+" changed while it was being pinned/);
    assert.equal(openFds(root), before, "no descriptor left open");
  });
});

Deno.test("deep tree: folders past the held descriptors pin as the reference digest says", async () => {
  await withWorkspace(async (root) => {
    deepTree(root, "real");
    Deno.symlinkSync("../z", `${root}/${"d/a".repeat(1)}${"/a".repeat(LEVELS - 2)}/link`);
    const before = openFds(root);
    assert.equal(await pinPath(root, "d"), referenceDigest(`${root}/d`));
    assert.equal(openFds(root), before, "no descriptor left open");
  });
});
