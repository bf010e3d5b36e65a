/**
 * Directory pins with the host's own `stat` and listing (`useHostStat`, `useHostReadDir`,
 * which the CLI sets to `Deno.statSync` and `Deno.readDirSync`): the same digests as
 * `node:fs` and an independent reference, the host's answers the ones checked, a listing's
 * kinds only a hint checked after open, and every budget and cleanup unchanged.
 */

import assert from "node:assert/strict";
import { installDenoHost } from "../../cli.ts";
import { resolveDeclaredPath } from "../../lib/pins/declared_path.ts";
import { threadWanted } from "../../lib/pins/file_queue.ts";
import { resolvePinOptions } from "../../lib/pins/options.ts";
import { pinPath } from "../../lib/pins/mod.ts";
import {
  type FollowedStat,
  type HostReadDir,
  type HostStat,
  hostStatInUse,
  type ListedEntry,
  useHostReadDir,
  useHostStat,
} from "../../lib/pins/host_fs.ts";
import { procfsAvailable } from "../../lib/pins/proc_fd.ts";
import { treeDigestLines } from "../../lib/pins/tree_pin.ts";
import {
  fixtureTree,
  mkfifo,
  openFds,
  referenceDigest,
  rejectsPin,
  withWorkspace,
  writeTree,
} from "./_helpers.ts";

/** Run `fn` with `stat` as the host's stat, restoring `node:fs` afterwards. */
async function withHostStat(stat: HostStat, fn: () => Promise<unknown>): Promise<void> {
  useHostStat(stat);
  try {
    await fn();
  } finally {
    useHostStat(undefined);
  }
}

/** `Deno.statSync`, counting its calls. */
function countingStat(): { stat: HostStat; calls: () => number } {
  let n = 0;
  return {
    stat: (p: string) => {
      n++;
      return Deno.statSync(p);
    },
    calls: () => n,
  };
}

Deno.test("host stat: installDenoHost sets it (as cli.ts does); the stat thread is then not wanted", () => {
  try {
    installDenoHost();
    assert.ok(hostStatInUse());
    assert.equal(threadWanted(), false, "a stat here costs less than queueing it");
  } finally {
    useHostStat(undefined);
    useHostReadDir(undefined);
  }
  assert.ok(!hostStatInUse());
});

Deno.test("host stat: same digests as node:fs and the reference (links, empty, large, deep, unicode)", async () => {
  await withWorkspace(async (root) => {
    fixtureTree(root);
    const files: Record<string, string> = {};
    for (let d = 0; d < 5; d++) for (let f = 0; f < 150; f++) files[`m/d${d}/f${f}`] = `${d}:${f}`;
    writeTree(root, files);
    for (const dir of ["t", "m"]) {
      const plain = await pinPath(root, dir);
      assert.equal(plain, referenceDigest(`${root}/${dir}`));
      const counted = countingStat();
      await withHostStat(counted.stat, async () => {
        assert.equal(await pinPath(root, dir), plain);
      });
      // One stat per regular file (t holds 9), where procfs shows descriptors.
      const want = procfsAvailable() ? (dir === "t" ? 9 : 750) : 0;
      assert.equal(counted.calls(), want, `host stats for ${dir}`);
    }
  });
});

Deno.test("host stat: its answer is the one checked (kind, then size against the bytes read)", async () => {
  if (!procfsAvailable()) return console.log("SKIP host stat answers: no /proc/self/fd");
  const lying = (change: (st: FollowedStat) => FollowedStat): HostStat => (p) =>
    change(Deno.statSync(p));
  const cases: [HostStat, RegExp][] = [
    [lying((st) => ({ isFile: false, size: st.size })), /entry "d\/a" is no longer a regular file/],
    [lying((st) => ({ isFile: true, size: st.size - 1 })), /entry "d\/a" grew while/],
    [lying((st) => ({ isFile: true, size: st.size + 1 })), /entry "d\/a" shrank while/],
    [lying((st) => ({ isFile: true, size: st.size + 0.5 })), /entry "d\/a"/],
  ];
  await withWorkspace(async (root) => {
    writeTree(root, { "d/a": "abc" });
    const before = openFds(root);
    for (const [stat, reason] of cases) {
      await withHostStat(
        stat,
        () => rejectsPin(pinPath(root, "d"), { root, declared: "d", reason }),
      );
    }
    await withHostStat(
      lying((st) => ({ isFile: true, size: st.size + 100 })),
      () =>
        rejectsPin(pinPath(root, "d", { maxBytes: 100 }), { root, reason: /more than 100 bytes/ }),
    );
    assert.equal(openFds(root), before);
  });
});

Deno.test("host stat: a file swapped for a FIFO or a folder before it is opened fails the after-open check", async () => {
  for (const swap of ["fifo", "folder"]) {
    await withWorkspace(async (root) => {
      const files: Record<string, string> = { "d/zfile": "file" };
      for (let i = 0; i < 300; i++) files[`d/f${String(i).padStart(3, "0")}`] = `${i}`;
      writeTree(root, files);
      const before = openFds(root);
      const target = await resolveDeclaredPath(root, "d");
      let swapped = false;
      await withHostStat(Deno.statSync, async () => {
        const run = treeDigestLines(target, "d", resolvePinOptions(), async () => {
          if (swapped) return;
          swapped = true;
          Deno.removeSync(`${root}/d/zfile`); // listed as a file, something else when opened
          if (swap === "folder") Deno.mkdirSync(`${root}/d/zfile`);
          else await mkfifo(`${root}/d/zfile`);
        });
        await rejectsPin(run, {
          root,
          declared: "d",
          reason: /entry "d\/zfile" is no longer a regular file/,
        });
      });
      assert.ok(swapped);
      assert.equal(openFds(root), before, `descriptors after the ${swap} swap`);
    });
  }
});

Deno.test("host stat: budgets, special files and symlinks to devices as with node:fs", async () => {
  await withWorkspace(async (root) => {
    const big = "b".repeat(300_000);
    writeTree(root, { "d/a": big, "d/b": big, "d/c": "c" });
    Deno.symlinkSync("/dev/zero", `${root}/d/zero`); // its target is pinned, never its bytes
    const before = openFds(root);
    await withHostStat(Deno.statSync, async () => {
      assert.equal(await pinPath(root, "d", { maxBytes: 600_001 }), referenceDigest(`${root}/d`));
      await rejectsPin(pinPath(root, "d", { maxBytes: 600_000 }), {
        root,
        reason: /more than 600000 bytes of file data/,
      });
      await rejectsPin(pinPath(root, "d", { maxEntries: 3 }), { root, reason: /more than 3/ });
      await mkfifo(`${root}/d/pipe`);
      await rejectsPin(pinPath(root, "d"), { root, reason: /is a special file \(FIFO\)/ });
    });
    assert.equal(openFds(root), before);
  });
});

/** Run `fn` with `readDir` as the host's listing, restoring `node:fs` afterwards. */
async function withHostReadDir(readDir: HostReadDir, fn: () => Promise<unknown>): Promise<void> {
  useHostReadDir(readDir);
  try {
    await fn();
  } finally {
    useHostReadDir(undefined);
  }
}

Deno.test("host listing: same digests as node:fs and the reference, one listing per folder", async () => {
  await withWorkspace(async (root) => {
    fixtureTree(root);
    const plain = await pinPath(root, "t");
    let listings = 0;
    const counting: HostReadDir = (p) => {
      listings++;
      return Deno.readDirSync(p);
    };
    await withHostReadDir(counting, async () => {
      assert.equal(await pinPath(root, "t"), plain);
      await withHostStat(Deno.statSync, async () => assert.equal(await pinPath(root, "t"), plain));
    });
    assert.equal(plain, referenceDigest(`${root}/t`));
    assert.equal(listings, 2 * 9, "t and its 8 folders, twice"); // t, b, b/sub, ..., z-empty
  });
});

Deno.test("host listing: its kinds are a hint, each checked after open", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "d/file": "x", "d/sub/x": "y" });
    Deno.symlinkSync("file", `${root}/d/link`);
    await mkfifo(`${root}/d/zpipe`); // last in walk order
    /** The real listing, with `name`'s kind replaced by `kind`. */
    const lying = (name: string, kind: Partial<ListedEntry>): HostReadDir => (p) =>
      Array.from(Deno.readDirSync(p), (e) => (e.name === name ? { ...e, ...kind } : e));
    const asFile = { isFile: true, isDirectory: false, isSymlink: false };
    const cases: [string, Partial<ListedEntry>, RegExp][] = [
      ["zpipe", asFile, /entry "d\/zpipe" is no longer a regular file/],
      ["link", asFile, /entry "d\/link" is a symlink/],
      ["sub", asFile, /entry "d\/sub" is no longer a regular file/],
      ["file", { isFile: false, isDirectory: true }, /entry "d\/file" is no longer a directory/],
      [
        "link",
        { isFile: false, isDirectory: true, isSymlink: false },
        /entry "d\/link" is a symlink/,
      ],
    ];
    const before = openFds(root);
    for (const stat of [undefined, Deno.statSync]) {
      for (const [name, kind, reason] of cases) {
        useHostStat(stat);
        try {
          await withHostReadDir(
            lying(name, kind),
            () => rejectsPin(pinPath(root, "d"), { root, declared: "d", reason }),
          );
        } finally {
          useHostStat(undefined);
        }
      }
    }
    assert.equal(openFds(root), before);
  });
});

Deno.test("host listing: its errors are described by code, never by path", async () => {
  await withWorkspace(async (root) => {
    writeTree(root, { "d/sub/x": "y" });
    const subIno = Deno.statSync(`${root}/d/sub`).ino;
    const denied: HostReadDir = (p) => {
      if (p.endsWith("/sub") || /\/fd\/\d+$/.test(p) && Deno.statSync(p).ino === subIno) {
        throw Object.assign(new Error(`permission denied: ${p}`), { code: "EACCES" });
      }
      return Deno.readDirSync(p);
    };
    await withHostReadDir(denied, () =>
      rejectsPin(pinPath(root, "d"), {
        root,
        declared: "d",
        reason: /entry "d\/sub" is not readable \(permission denied\)/,
      }));
  });
});
