import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { identityKey } from "../../lib/paths/exact_stat.ts";
import { type HostObjectStat, useHostObjectStat } from "../../lib/paths/host_object_stat.ts";
import { statOpenObject } from "../../lib/paths/object_stat.ts";
import { procfsAvailable } from "../../lib/paths/sandbox.ts";

const LINUX = procfsAvailable();
/** Linux's `O_PATH` (as lib/paths/open_at.ts). */
const O_PATH = 0o10000000;

function withHost(host: HostObjectStat | undefined, fn: () => void): void {
  useHostObjectStat(host);
  try {
    fn();
  } finally {
    useHostObjectStat(undefined);
  }
}

function withTree(fn: (dir: string) => void): void {
  const dir = fs.mkdtempSync(path.join(Deno.env.get("TMPDIR") ?? "/tmp", "object_stat_"));
  try {
    fs.writeFileSync(path.join(dir, "a.txt"), "twelve bytes");
    fs.mkdirSync(path.join(dir, "sub"));
    fs.symlinkSync("a.txt", path.join(dir, "link"));
    fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Each object as the sandbox opens it: `O_PATH | O_NOFOLLOW` (a link is the link itself). */
function eachRef(dir: string, fn: (name: string, fd: number) => void): void {
  for (const name of ["a.txt", "sub", "link"]) {
    const fd = fs.openSync(path.join(dir, name), O_PATH | fs.constants.O_NOFOLLOW);
    try {
      fn(name, fd);
    } finally {
      fs.closeSync(fd);
    }
  }
}

Deno.test({
  name: "statOpenObject: the host's stat gives node:fs's kind, exact identity and size",
  ignore: !LINUX,
  fn: () =>
    withTree((dir) =>
      eachRef(dir, (name, fd) => {
        const want = fs.lstatSync(path.join(dir, name), { bigint: true });
        for (const host of [undefined, Deno.statSync]) {
          withHost(host, () => {
            const st = statOpenObject(fd);
            const label = `${name} via ${host ? "Deno.statSync" : "node:fs"}`;
            assert.equal(identityKey(st), `${want.dev}:${want.ino}`, label);
            assert.equal(BigInt(st.size), want.size, label);
            assert.equal(st.isFile(), want.isFile(), label);
            assert.equal(st.isDirectory(), want.isDirectory(), label);
            assert.equal(st.isSymbolicLink(), want.isSymbolicLink(), label);
          });
        }
      })
    ),
});

Deno.test({
  name: "statOpenObject: an inexact or missing identity from the host is asked of node:fs",
  ignore: !LINUX,
  fn: () =>
    withTree((dir) =>
      eachRef(dir, (name, fd) => {
        const want = fs.lstatSync(path.join(dir, name), { bigint: true });
        const lying = (change: Record<string, unknown>): HostObjectStat => (p) => ({
          ...Deno.statSync(p),
          ...change,
        });
        for (
          const change of [{ ino: 2 ** 53 }, { dev: 2 ** 60 }, { ino: null }, { size: NaN }]
        ) {
          withHost(lying(change), () => {
            const st = statOpenObject(fd);
            assert.equal(identityKey(st), `${want.dev}:${want.ino}`, JSON.stringify(change));
            assert.equal(BigInt(st.size), want.size);
          });
        }
      })
    ),
});

Deno.test({
  name: "statOpenObject: when the host's stat fails, node:fs's error is thrown",
  ignore: !LINUX,
  fn: () => {
    // Past the largest descriptor Linux can ever hand out (nr_open ≤ 2^30), so never open:
    // a closed descriptor's number could be reused at once by a test running alongside.
    const fd = 2 ** 31 - 1;
    for (const host of [undefined, Deno.statSync]) {
      withHost(host, () => {
        assert.throws(
          () => statOpenObject(fd),
          (e: NodeJS.ErrnoException) => e.code === "EBADF" || e.code === "ENOENT",
        );
      });
    }
  },
});
