/**
 * Directory pins under Node (the npm build): the same digest as under Deno, a folder
 * swapped for a symlink mid-walk is not followed, and no descriptor stays open; the same with
 * the stat thread, which never keeps Node alive.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { pinPath } from "../../lib/pins/mod.ts";
import { withWorkspace, writeTree } from "./_helpers.ts";

const LIB = new URL("../../lib/", import.meta.url).pathname;

const ENTRY = `
import { readdirSync, renameSync, symlinkSync } from "node:fs";
import { pinPath } from "${LIB}pins/pin_path.ts";
import { resolveDeclaredPath } from "${LIB}pins/declared_path.ts";
import { directoryDigest } from "${LIB}pins/dir_digest.ts";
import { resolvePinOptions } from "${LIB}pins/options.ts";
import { treeDigestLines } from "${LIB}pins/tree_pin.ts";
const root = process.argv[2];
const fds = () => readdirSync("/proc/self/fd").length;
const before = fds();
const digest = await pinPath(root, "d");
const target = await resolveDeclaredPath(root, "d");
let swapped = false;
const lines = await treeDigestLines(target, "d", resolvePinOptions(), async () => {
  if (swapped) return;
  renameSync(root + "/d/sub", root + "/moved");
  symlinkSync("../outside", root + "/d/sub");
  swapped = true;
});
console.log(JSON.stringify({ digest, swappedDigest: directoryDigest(lines), leaked: fds() - before }));
`;

function nodeAvailable(): boolean {
  try {
    return new Deno.Command("node", { args: ["--version"], stdout: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

Deno.test("tree pin under Node: same digest as Deno, mid-walk swap not followed, fds closed", async () => {
  if (!nodeAvailable()) return console.log("SKIP tree pin under Node: no node on PATH");
  await withWorkspace(async (root) => {
    const files: Record<string, string> = { "d/a": "1", "d/\u{1F600}": "2", "d/\uFF21": "3" };
    for (let i = 0; i < 300; i++) files[`d/sub/s${String(i).padStart(3, "0")}`] = `${i}`;
    for (let i = 0; i < 300; i++) files[`outside/s${String(i).padStart(3, "0")}`] = `other ${i}`;
    writeTree(root, { ...files, "d/big": "b".repeat(300_000) });
    Deno.symlinkSync("../a", `${root}/d/link`);
    Deno.mkdirSync(`${root}/d/empty/deeper`, { recursive: true });
    const want = await pinPath(root, "d");
    writeTree(root, { "entry.ts": ENTRY });
    const bundle = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform",
        "node",
        "-o",
        join(root, "entry.mjs"),
        join(root, "entry.ts"),
      ],
      stdout: "null",
    }).output();
    assert.ok(bundle.success, new TextDecoder().decode(bundle.stderr));
    const out = await new Deno.Command("node", { args: [join(root, "entry.mjs"), root] }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(r.digest, want, "Node pins the tree to Deno's digest");
    assert.equal(r.swappedDigest, want, "the walk kept reading the folder it opened");
    assert.equal(r.leaked, 0, "no descriptor left open");
  });
});

const THREAD_ENTRY = `
import { readdirSync, readlinkSync, realpathSync } from "node:fs";
import { pinPath } from "${LIB}pins/pin_path.ts";
import { batchesSizedByThread, waitForThreadInTests } from "${LIB}pins/file_queue.ts";
import { startStatWorker } from "${LIB}pins/stat_worker.ts";
const root = process.argv[2];
const under = realpathSync(root) + "/";
const fds = () => readdirSync("/proc/self/fd").filter((n) => {
  try { return (readlinkSync("/proc/self/fd/" + n) + "/").startsWith(under); } catch { return false; }
}).length;
const before = fds();
const started = await startStatWorker();
waitForThreadInTests(60_000);
const digest = await pinPath(root, "d");
console.log(JSON.stringify({ started, digest, sized: batchesSizedByThread(), leaked: fds() - before }));
// No exit call: the idle stat thread must not keep Node alive.
`;

Deno.test("tree pin under Node with the stat thread: same digest, fds closed, Node still exits", async () => {
  if (!nodeAvailable()) return console.log("SKIP stat thread under Node: no node on PATH");
  await withWorkspace(async (root) => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1_200; i++) files[`d/s${i % 6}/f${String(i).padStart(4, "0")}`] = `${i}`;
    writeTree(root, { ...files, "d/big": "b".repeat(300_000) });
    const want = await pinPath(root, "d");
    writeTree(root, { "entry.ts": THREAD_ENTRY });
    const out = join(root, "entry.mjs");
    const bundle = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", "--platform", "node", "-o", out, join(root, "entry.ts")],
      stdout: "null",
    }).output();
    assert.ok(bundle.success, new TextDecoder().decode(bundle.stderr));
    const run = await new Deno.Command("node", { args: [out, root] }).output();
    assert.ok(run.success, new TextDecoder().decode(run.stderr));
    const r = JSON.parse(new TextDecoder().decode(run.stdout));
    assert.equal(r.started, true, "the stat thread starts under Node");
    assert.equal(r.digest, want, "Node with the thread pins the tree to Deno's digest");
    assert.ok(r.sized > 0, "the thread sized some batches");
    assert.equal(r.leaked, 0, "no descriptor left open");
  });
});
