/**
 * Directory pins with the stat thread (`stat_worker.ts`, `file_queue.ts`): the same digest
 * and the same failure as with one thread, nothing followed when the tree changes mid-walk,
 * the walk finishing alone when the thread stops, and every descriptor closed.
 */

import assert from "node:assert/strict";
import { resolveDeclaredPath } from "../../lib/pins/declared_path.ts";
import { directoryDigest } from "../../lib/pins/dir_digest.ts";
import { batchesSizedByThread, waitForThreadInTests } from "../../lib/pins/file_queue.ts";
import { pinPath } from "../../lib/pins/mod.ts";
import type { PinOptions } from "../../lib/pins/options.ts";
import { resolvePinOptions } from "../../lib/pins/options.ts";
import {
  allowStatWorker,
  awaitStatAnswer,
  startStatWorker,
  statOnWorker,
  stopStatWorker,
} from "../../lib/pins/stat_worker.ts";
import { treeDigestLines } from "../../lib/pins/tree_pin.ts";
import { mkfifo, openFds, rejectsPin, withWorkspace, writeTree } from "./_helpers.ts";

/** `d/s00/f000` … : `dirs` folders of `per` small files, in walk order. */
function bigTree(root: string, dirs: number, per: number): void {
  const files: Record<string, string> = {};
  for (let d = 0; d < dirs; d++) {
    for (let f = 0; f < per; f++) {
      files[`d/s${String(d).padStart(2, "0")}/f${String(f).padStart(3, "0")}`] = `${d}:${f}\n`;
    }
  }
  writeTree(root, files);
}

/**
 * Run `fn` with the stat thread online and walks waiting for its answers (so it sizes every
 * batch it is given, however busy the machine); skipped where it cannot start.
 */
async function withThread(name: string, fn: () => Promise<void>): Promise<void> {
  await allowStatWorker(true);
  waitForThreadInTests(60_000);
  try {
    if (!await startStatWorker()) return console.log(`SKIP ${name}: no stat thread here`);
    await fn();
  } finally {
    waitForThreadInTests(0);
    await allowStatWorker(false);
  }
}

/** The failure message of `run`, or "ok: <digest>". */
async function outcome(run: Promise<string>): Promise<string> {
  try {
    return `ok: ${await run}`;
  } catch (e) {
    return (e as Error).message;
  }
}

Deno.test("stat thread: the same digest as one thread, with links, large and unicode entries", async () => {
  await withWorkspace(async (root) => {
    bigTree(root, 12, 150);
    writeTree(root, { "d/s05/big.bin": "b".repeat(300_000), "d/s07/\u{1F600}": "astral" });
    Deno.symlinkSync("../s00/f000", `${root}/d/s09/link`);
    await allowStatWorker(false);
    const alone = await pinPath(root, "d");
    await withThread("digest", async () => {
      const before = openFds(root);
      const sized = batchesSizedByThread();
      assert.equal(await pinPath(root, "d"), alone);
      assert.ok(batchesSizedByThread() > sized, "the thread sized some batches");
      assert.equal(openFds(root), before, "no descriptor left open");
    });
  });
});

Deno.test("stat thread: every failure is the one-thread failure, first in walk order", async () => {
  await withWorkspace(async (root) => {
    bigTree(root, 10, 150); // 1,500 files; the thread takes over after the first 512
    await mkfifo(`${root}/d/s08/f050x`); // a special file at entry ~1,251
    const cases: PinOptions[] = [
      {}, // the FIFO
      { maxBytes: 5_000 }, // the byte limit, well before the FIFO
      { maxEntries: 1_000 }, // the entry limit, before the FIFO
      { maxEntries: 1_400 }, // the FIFO, before the entry limit
    ];
    await allowStatWorker(false);
    const alone: string[] = [];
    for (const opts of cases) alone.push(await outcome(pinPath(root, "d", opts)));
    assert.match(alone[0], /is a special file \(FIFO\)/);
    assert.match(alone[1], /more than 5000 bytes/);
    assert.match(alone[2], /more than 1000 entries/);
    assert.match(alone[3], /is a special file \(FIFO\)/);
    await withThread("failures", async () => {
      const before = openFds(root);
      const sized = batchesSizedByThread();
      for (const [i, opts] of cases.entries()) {
        assert.equal(await outcome(pinPath(root, "d", opts)), alone[i], JSON.stringify(opts));
        assert.equal(openFds(root), before, `descriptors after ${JSON.stringify(opts)}`);
      }
      assert.ok(batchesSizedByThread() > sized, "the thread sized some batches");
    });
  });
});

Deno.test("stat thread: a file swapped for a FIFO before it is opened fails the after-open check", async () => {
  await withWorkspace(async (root) => {
    bigTree(root, 8, 150);
    writeTree(root, { "d/zfile": "file" });
    await withThread("fifo swap", async () => {
      const before = openFds(root);
      const sized = batchesSizedByThread();
      const target = await resolveDeclaredPath(root, "d");
      let pauses = 0;
      const run = treeDigestLines(target, "d", resolvePinOptions(), async () => {
        if (++pauses !== 3) return; // past the first 512 entries: the thread sizes the rest
        Deno.removeSync(`${root}/d/zfile`);
        await mkfifo(`${root}/d/zfile`);
      });
      await rejectsPin(run, {
        root,
        declared: "d",
        reason: /entry "d\/zfile" is no longer a regular file/,
      });
      assert.ok(pauses >= 3);
      assert.ok(batchesSizedByThread() > sized, "the thread sized zfile's batch");
      assert.equal(openFds(root), before, "no descriptor left open");
    });
  });
});

Deno.test("stat thread: stopped mid-walk, the walk finishes on its own thread", async () => {
  await withWorkspace(async (root) => {
    bigTree(root, 10, 150);
    await allowStatWorker(false);
    const alone = await pinPath(root, "d");
    await withThread("stop", async () => {
      const before = openFds(root);
      const target = await resolveDeclaredPath(root, "d");
      let pauses = 0;
      const lines = await treeDigestLines(target, "d", resolvePinOptions(), async () => {
        if (++pauses === 3) await stopStatWorker();
      });
      assert.equal(directoryDigest(lines), alone);
      assert.equal(openFds(root), before, "no descriptor left open");
    });
  });
});

Deno.test("stat thread: a large file that grows after the thread sized it cannot pass the byte limit", async () => {
  await withWorkspace(async (root) => {
    const files: Record<string, string> = {};
    for (let f = 0; f < 900; f++) files[`d/f${String(f).padStart(3, "0")}`] = `${f}\n`;
    files["d/f600big"] = "b".repeat(300_000); // entry 602: in the queue's second batch
    writeTree(root, files);
    const opts = resolvePinOptions({ maxBytes: 1_000_000 });
    await withThread("growth", async () => {
      const before = openFds(root);
      const target = await resolveDeclaredPath(root, "d");
      let pauses = 0;
      const run = treeDigestLines(target, "d", opts, () => {
        // The third pause (after entry 768) falls after f600big's batch was sent to the
        // thread and before it is finished here: once the thread has answered every request
        // sent so far (it answers in order), the file grows past the byte limit.
        if (++pauses !== 3) return Promise.resolve();
        const mark = statOnWorker([]);
        assert.ok(mark !== undefined && awaitStatAnswer(mark, 60_000), "the thread answered");
        Deno.writeFileSync(`${root}/d/f600big`, new Uint8Array(2_000_000), { append: true });
        return Promise.resolve();
      });
      await rejectsPin(run, {
        root,
        declared: "d",
        reason: /entry "d\/f600big" changed while it was being pinned/,
      });
      assert.ok(pauses >= 3);
      assert.equal(openFds(root), before, "no descriptor left open");
    });
  });
});

const LIB = new URL("../../lib/", import.meta.url).pathname;

/** Pins `d` with 6–9 descriptors left free, alone then with the stat thread. */
const FEW_FDS_ENTRY = `
import { closeSync, openSync } from "node:fs";
import { resolveDeclaredPath } from "${LIB}pins/declared_path.ts";
import { directoryDigest } from "${LIB}pins/dir_digest.ts";
import { batchesSizedByThread, waitForThreadInTests } from "${LIB}pins/file_queue.ts";
import { resolvePinOptions } from "${LIB}pins/options.ts";
import { allowStatWorker, startStatWorker } from "${LIB}pins/stat_worker.ts";
import { treeDigestLines } from "${LIB}pins/tree_pin.ts";
const target = await resolveDeclaredPath(Deno.args[0], "d");
async function pins() {
  const out = [];
  for (const free of [6, 7, 8, 9]) {
    const filler = [];
    try { for (;;) filler.push(openSync("/dev/null", "r")); } catch { /* EMFILE */ }
    for (let i = 0; i < free; i++) closeSync(filler.pop());
    try {
      out.push(directoryDigest(await treeDigestLines(target, "d", resolvePinOptions())));
    } catch (e) {
      out.push(e.message);
    }
    for (const fd of filler) closeSync(fd);
  }
  return out;
}
await allowStatWorker(false);
const alone = await pins();
await allowStatWorker(true);
waitForThreadInTests(60_000);
const online = await startStatWorker();
const sized = batchesSizedByThread();
const threaded = await pins();
console.log(JSON.stringify({ alone, threaded, online, sized: batchesSizedByThread() - sized }));
await allowStatWorker(false);
`;

Deno.test("stat thread: out of descriptors at a folder, the queued files are finished first", async () => {
  await withWorkspace(async (root) => {
    // 600 files, then 200 folders of one file each: past the first 512 entries every file
    // queued holds a descriptor, and a folder's open (and listing) needs one too.
    const files: Record<string, string> = {};
    for (let i = 0; i < 600; i++) files[`d/a${String(i).padStart(3, "0")}`] = `${i}`;
    for (let i = 0; i < 200; i++) files[`d/b${String(i).padStart(3, "0")}/f`] = `${i}`;
    writeTree(root, { ...files, "few_fds.ts": FEW_FDS_ENTRY });
    const config = new URL("../../deno.json", import.meta.url).pathname;
    const out = await new Deno.Command("sh", {
      args: [
        "-c",
        'ulimit -n 512 && exec "$0" run -A --config "$1" "$2/few_fds.ts" "$2"',
        Deno.execPath(),
        config,
        root,
      ],
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    if (!r.online) return console.log("SKIP few descriptors: no stat thread here");
    for (const a of r.alone) assert.match(a, /^[0-9a-f]{64}$/, "one thread pins it");
    assert.deepEqual(r.threaded, r.alone, "the stat thread changes no outcome");
    assert.ok(r.sized > 0, "the thread sized some batches");
  });
});

Deno.test("stat thread: the files still queued after the walk are hashed with pauses too", async () => {
  await withWorkspace(async (root) => {
    // 512 tiny files, then 255 of 140 KiB (35 MiB) that all wait in the queue at the end.
    const files: Record<string, string> = {};
    for (let i = 0; i < 512; i++) files[`d/a${String(i).padStart(3, "0")}`] = `${i}`;
    const body = "x".repeat(140 * 1024);
    for (let i = 0; i < 255; i++) files[`d/b${String(i).padStart(3, "0")}`] = `${i}${body}`;
    writeTree(root, files);
    const target = await resolveDeclaredPath(root, "d");
    const pins = async () => {
      let pauses = 0;
      const lines = await treeDigestLines(target, "d", resolvePinOptions(), () => {
        pauses++;
        return Promise.resolve();
      });
      return { digest: directoryDigest(lines), pauses };
    };
    await allowStatWorker(false);
    const alone = await pins();
    await withThread("drain pauses", async () => {
      const sized = batchesSizedByThread();
      const threaded = await pins();
      assert.equal(threaded.digest, alone.digest);
      assert.ok(batchesSizedByThread() > sized, "the thread sized some batches");
      // One thread pauses every 8 MiB read; the queue's last ~35 MiB must not go unpaused.
      assert.ok(
        threaded.pauses >= alone.pauses - 1,
        `${threaded.pauses} pauses with the thread, ${alone.pauses} without`,
      );
    });
  });
});
