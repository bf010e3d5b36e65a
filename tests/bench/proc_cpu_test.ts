/**
 * bench/proc_cpu.ts: the per-thread run time of a process tree (what `mcp_cpu_ab.ts`
 * compares checkouts by) grows with the work done and agrees with the 10 ms ticks.
 */

import assert from "node:assert/strict";
import { treeCpuMs, treeCpuUs } from "../../bench/proc_cpu.ts";

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* spin */ }
}

Deno.test("treeCpuUs counts this process's run time in µs, like treeCpuMs", () => {
  const before = treeCpuUs(Deno.pid);
  if (before === undefined) return; // no per-thread schedstat here: callers use treeCpuMs
  const ticksBefore = treeCpuMs(Deno.pid);
  busy(60);
  const after = treeCpuUs(Deno.pid)!;
  assert.ok(after > before, "run time grew");
  const ticks = (treeCpuMs(Deno.pid) - ticksBefore) * 1000;
  // Both saw the same spin; the ticks are 10 ms coarse (and count ended threads too).
  assert.ok(after - before > ticks - 30_000, `${after - before} µs against ${ticks} µs of ticks`);
});

Deno.test("treeCpuUs of a process that does not exist is undefined", () => {
  assert.equal(treeCpuUs(2 ** 22 + 12_345), undefined); // above Linux's pid_max
});
