/**
 * The reserve descriptor is a number held across calls: if some other code closed that
 * number and the kernel gave it to another file, withReserve must not close that file.
 */

import assert from "node:assert/strict";
import { closeSync, fstatSync, openSync, readdirSync, readlinkSync } from "node:fs";
import { holdReserve, withReserve } from "../../lib/process/fd_reserve.ts";

/** The descriptors of this process open on /dev/null. */
function devNulls(): Set<number> {
  const found = new Set<number>();
  for (const f of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${f}`) === "/dev/null") found.add(Number(f));
    } catch { /* closed meanwhile */ }
  }
  return found;
}

Deno.test("withReserve never closes a file that took the reserve's number", () => {
  // The reserve may already be held (another import held it): find it among /dev/null fds.
  let fd: number | undefined;
  withReserve(() => 0, () => false); // holds one
  for (const n of devNulls()) {
    // The reserve is the /dev/null that a failed read gives back.
    let gone = false;
    withReserve(() => (gone = !devNulls().has(n)), () => true);
    if (gone) fd = n;
  }
  assert.ok(fd !== undefined, "no reserve descriptor found");
  const reserve = fd;
  // Someone closes the number behind its back; another file takes it.
  closeSync(reserve);
  // Open files until one is given that number (the lowest free one, unless another
  // thread freed a lower one meanwhile).
  const extra: number[] = [];
  let other = openSync("/proc/self/stat", "r");
  while (other !== reserve && extra.length < 64) {
    extra.push(other);
    other = openSync("/proc/self/stat", "r");
  }
  for (const e of extra) closeSync(e);
  try {
    assert.equal(other, reserve, "no file was given the reserve's number (test setup)");
    const ino = fstatSync(other).ino;
    withReserve(() => null, (r) => r === null); // a failed read: the reserve is given back
    assert.equal(fstatSync(other).ino, ino, "another file's descriptor was closed");
  } finally {
    try {
      closeSync(other);
    } catch { /* closed by the bug */ }
  }
  holdReserve();
});
