/**
 * The reserve descriptor is a number held across calls: if some other code closed that
 * number and the kernel gave it to another file, withReserve must not close that file.
 *
 * Test modules run on threads of one process, so other tests open and close descriptors
 * meanwhile: the reserve is found by its accessor, and a setup that another thread spoilt
 * (it took the freed number first) is tried again.
 */

import assert from "node:assert/strict";
import { closeSync, fstatSync, openSync } from "node:fs";
import { holdReserve, reserveFd, withReserve } from "../../lib/process/fd_reserve.ts";

/**
 * Close the reserve's number behind its back and open files until one is given that
 * number; the file's descriptor, or undefined when another thread took the number first.
 */
function takeReserveNumber(reserve: number): number | undefined {
  closeSync(reserve);
  const extra: number[] = [];
  let other = openSync("/proc/self/stat", "r");
  while (other !== reserve && extra.length < 64) {
    extra.push(other);
    other = openSync("/proc/self/stat", "r");
  }
  for (const e of extra) closeSync(e);
  if (other === reserve) return other;
  closeSync(other);
  return undefined;
}

Deno.test("withReserve never closes a file that took the reserve's number", () => {
  let checked = false;
  for (let attempt = 0; attempt < 50 && !checked; attempt++) {
    holdReserve();
    const reserve = reserveFd();
    assert.ok(reserve !== undefined, "no reserve descriptor held");
    const other = takeReserveNumber(reserve);
    if (other === undefined) {
      // Another thread took the number: the module still believes it holds it; a failed
      // read must abandon it (it names someone else's file now) and hold a new one.
      withReserve(() => null, (r) => r === null);
      continue;
    }
    try {
      const ino = fstatSync(other).ino;
      withReserve(() => null, (r) => r === null); // a failed read: the reserve is given back
      assert.equal(fstatSync(other).ino, ino, "another file's descriptor was closed");
      assert.notEqual(reserveFd(), reserve, "the abandoned number is still held");
      checked = true;
    } finally {
      try {
        closeSync(other);
      } catch { /* closed by the bug */ }
    }
  }
  assert.ok(checked, "no attempt got the reserve's number back (test setup)");
});

Deno.test("a failed read gives the reserve back for the second read and holds one again", () => {
  holdReserve();
  const before = reserveFd();
  assert.ok(before !== undefined);
  let reads = 0;
  const result = withReserve(() => ++reads, (r) => r === 1);
  assert.equal(result, 2, "the read was not tried once more");
  assert.ok(reserveFd() !== undefined, "no reserve held after the retry");
});
