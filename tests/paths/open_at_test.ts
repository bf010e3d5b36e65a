import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { PathError } from "../../lib/errors/errors.ts";
import { openFolderAt, openRegularAt } from "../../lib/paths/open_at.ts";
import { procfsAvailable } from "../../lib/paths/sandbox.ts";
import { type ExactStats, identityKey, lstatExact } from "../../lib/paths/exact_stat.ts";
import { type HostObjectStat, useHostObjectStat } from "../../lib/paths/host_object_stat.ts";

type Stats = ExactStats;

const LINUX = procfsAvailable();

function withDir(fn: (dir: string, at: (name: string) => string) => void): void {
  const dir = fs.mkdtempSync(path.join(Deno.env.get("TMPDIR") ?? "/tmp", "open_at_"));
  const fd = fs.openSync(dir, "r");
  try {
    fn(dir, (name) => `/proc/self/fd/${fd}/${name}`);
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const open = { isDenied: () => false, confirmInside: () => {} };

/**
 * This process's descriptors open on something under `dir` (the test's own folder, its
 * descriptor from withDir excepted), so other test files running in the same process
 * cannot move the count.
 */
function fdsUnder(dir: string): string[] {
  const real = fs.realpathSync(dir);
  const out: string[] = [];
  for (const n of fs.readdirSync("/proc/self/fd")) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${n}`);
      if (target.startsWith(`${real}/`)) out.push(target);
    } catch { /* closed meanwhile */ }
  }
  return out.sort();
}

function refused(fn: () => unknown, re: RegExp): void {
  assert.throws(fn, (e) => e instanceof PathError && re.test(e.message));
}

/** The object checks through `node:fs`, and through the host's stat as cli.ts sets it. */
const HOSTS: [string, HostObjectStat | undefined][] = [
  ["node:fs", undefined],
  ["Deno.statSync", Deno.statSync],
];

function withHost(host: HostObjectStat | undefined, fn: () => void): void {
  useHostObjectStat(host);
  try {
    fn();
  } finally {
    useHostObjectStat(undefined);
  }
}

for (const [label, host] of HOSTS) {
  Deno.test({
    name: `${label}: openRegularAt reads a regular file and refuses links, folders and the missing`,
    ignore: !LINUX,
    fn: () =>
      withHost(host, () =>
        withDir((dir, at) => {
          fs.writeFileSync(path.join(dir, "a.txt"), "inside\n");
          fs.mkdirSync(path.join(dir, "sub"));
          fs.symlinkSync("a.txt", path.join(dir, "link"));
          fs.symlinkSync("sub", path.join(dir, "link_dir"));
          const file = openRegularAt(at("a.txt"), "a.txt", open);
          try {
            assert.equal(file.size, 7);
            assert.equal(fs.readFileSync(file.fd, "utf8"), "inside\n");
          } finally {
            fs.closeSync(file.fd);
          }
          refused(() => openRegularAt(at("link"), "link", open), /is a symlink/);
          refused(() => openRegularAt(at("link_dir"), "link_dir", open), /is a symlink/);
          refused(() => openRegularAt(at("sub"), "sub", open), /is a folder, not a file/);
          refused(() => openRegularAt(at("nope"), "nope", open), /does not exist/);
        })),
  });

  Deno.test({
    name: `${label}: openRegularAt never opens a FIFO: no reader appears, nothing blocks`,
    ignore: !LINUX,
    fn: () =>
      withHost(host, () =>
        withDir((dir, at) => {
          const fifo = path.join(dir, "pipe");
          assert.equal(new Deno.Command("mkfifo", { args: [fifo] }).outputSync().code, 0);
          refused(() => openRegularAt(at("pipe"), "pipe", open), /special file/);
          // A writer that does not block finds no reader: the FIFO was never opened for reading.
          assert.throws(
            () => fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK),
            (e: NodeJS.ErrnoException) => e.code === "ENXIO",
          );
        })),
  });

  Deno.test({
    name:
      `${label}: openRegularAt refuses a denied object and one the guard finds outside, closing all`,
    ignore: !LINUX,
    fn: () =>
      withHost(host, () =>
        withDir((dir, at) => {
          fs.writeFileSync(path.join(dir, "a.txt"), "x\n");
          const key = identityKey(lstatExact(path.join(dir, "a.txt"))!);
          const denied = {
            ...open,
            isDenied: (st: Stats) => identityKey(st) === key,
          };
          const fdsBefore = fdsUnder(dir);
          refused(() => openRegularAt(at("a.txt"), "a.txt", denied), /does not admit/);
          const outside = {
            ...open,
            confirmInside: (_fd: number, shown: string) => {
              throw new PathError(`${shown} resolved outside`);
            },
          };
          refused(() => openRegularAt(at("a.txt"), "a.txt", outside), /resolved outside/);
          assert.deepEqual(fdsUnder(dir), fdsBefore, "a descriptor leaked");
        })),
  });

  Deno.test({
    name:
      `${label}: openFolderAt opens a folder and refuses what an lstat check refused, same messages`,
    ignore: !LINUX,
    fn: () =>
      withHost(host, () =>
        withDir((dir, at) => {
          fs.mkdirSync(path.join(dir, "sub"));
          fs.mkdirSync(path.join(dir, "private"));
          fs.writeFileSync(path.join(dir, "a.txt"), "x\n");
          fs.writeFileSync(path.join(dir, "denied.txt"), "x\n");
          fs.symlinkSync("sub", path.join(dir, "link_dir"));
          const fifo = path.join(dir, "pipe");
          assert.equal(new Deno.Command("mkfifo", { args: [fifo] }).outputSync().code, 0);
          const keys = new Set(
            ["private", "denied.txt"].map((n) => identityKey(lstatExact(path.join(dir, n))!)),
          );
          const guard = { ...open, isDenied: (st: Stats) => keys.has(identityKey(st)) };
          const fdsBefore = fdsUnder(dir);
          const fd = openFolderAt(at("sub"), "sub", guard);
          assert.ok(fs.fstatSync(fd).isDirectory());
          fs.closeSync(fd);
          refused(() => openFolderAt(at("link_dir"), "link_dir", guard), /is a symlink/);
          refused(() => openFolderAt(at("a.txt"), "a.txt", guard), /`a.txt` is not a folder/);
          refused(() => openFolderAt(at("pipe"), "pipe", guard), /`pipe` is not a folder/);
          refused(() => openFolderAt(at("nope"), "nope", guard), /does not exist/);
          refused(() => openFolderAt(at("private"), "private", guard), /does not admit/);
          refused(() => openFolderAt(at("denied.txt"), "denied.txt", guard), /does not admit/);
          assert.deepEqual(fdsUnder(dir), fdsBefore, "a descriptor leaked");
          // The FIFO was never opened for reading.
          assert.throws(
            () => fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK),
            (e: NodeJS.ErrnoException) => e.code === "ENXIO",
          );
        })),
  });
}
