/**
 * Deno's spawn places its extra descriptors in order (`dup2(source, position)`, then
 * closes the source), so a source whose number is a position an earlier entry has
 * already set is read after it was overwritten: that bind gets the earlier bind's object
 * and the earlier position ends up closed (bwrap then fails on it, and the confined call
 * fails spuriously). Bind sources are opened in order, but another thread (the runtime's
 * blocking pool, a host's own I/O) can free a low number meanwhile, so a later source may
 * land below its position. Each bind must still reach the child at its own position.
 */

import assert from "node:assert/strict";
import {
  fstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIND_FD_BASE, HeldFds, withBindFds } from "../../lib/process/bind_fds.ts";
import { spawnGroup } from "../../lib/process/spawn_group.ts";
import { ENV } from "./helpers.ts";

/** Linux's `O_PATH`, as bind sources are opened (lib/sandbox/bind_open.ts). */
const O_PATH = 0o10000000;

/**
 * Sources opened in `dir` until the lowest, handed over last, lands on a position well
 * above its own number (however many descriptors this process holds, other tests' too).
 */
function openSources(dir: string): { fd: number; name: string }[] {
  const out: { fd: number; name: string }[] = [];
  const lowest = () => Math.min(...out.map((s) => s.fd));
  while (out.length < 8 || BIND_FD_BASE + out.length - 1 <= lowest() + 4) {
    const name = join(dir, `f${out.length}`);
    writeFileSync(name, "");
    out.push({ fd: openSync(name, O_PATH), name });
  }
  return out;
}

function ownFds(): Set<number> {
  return new Set(readdirSync("/proc/self/fd").map(Number));
}

Deno.test("a bind source numbered like an earlier position still reaches its own position", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-bindorder-"));
  // Handed over highest first: the lowest numbers land on the highest positions, as when a
  // number below was freed while the sources were being opened.
  const sources = openSources(dir).sort((a, b) => b.fd - a.fd);
  const COUNT = sources.length;
  const fds = sources.map((s) => s.fd);
  const want = sources.map((s) => s.name);
  const collides = fds.some((fd, i) => fd >= BIND_FD_BASE && fd < BIND_FD_BASE + i);
  assert.ok(collides, `no source below its position: ${fds.join(",")}`);
  const held = new HeldFds(fds);
  try {
    const stdio = withBindFds(["pipe", "pipe", "pipe"], held);
    // No source is a number an earlier entry sets.
    stdio.forEach((s, p) => {
      if (typeof s === "number" && s < p) assert.equal(stdio[s], "ignore", `source ${s} at ${p}`);
    });
    // A source moved elsewhere is a copy of the same object.
    fds.forEach((fd, i) => {
      const s = stdio[BIND_FD_BASE + i] as number;
      assert.equal(fstatSync(s).ino, fstatSync(fd).ino);
    });
    const last = BIND_FD_BASE + COUNT - 1;
    const h = await spawnGroup({
      command: "/bin/sh",
      args: [
        "-c",
        `i=${BIND_FD_BASE}; while [ $i -le ${last} ]; do echo "$i $(readlink /proc/self/fd/$i)"; i=$((i+1)); done`,
      ],
      cwd: "/",
      env: ENV,
      binds: held,
    });
    let out = "";
    h.stdout.on("data", (d: Uint8Array) => out += new TextDecoder().decode(d));
    h.stderr.resume();
    await h.exited;
    const got = new Map(out.trim().split("\n").map((l) => l.split(" ") as [string, string]));
    want.forEach((name, i) =>
      assert.equal(got.get(String(BIND_FD_BASE + i)), name, `position ${BIND_FD_BASE + i}`)
    );
  } finally {
    held.close();
  }
  // Every source and every copy is closed once the spawn has returned.
  const left = [...ownFds()].filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
    } catch {
      return false;
    }
  });
  rmSync(dir, { recursive: true });
  assert.deepEqual(left, []);
});
