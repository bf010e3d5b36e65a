/**
 * CPU time of a process and its descendants from /proc (Linux), for measuring a server's
 * own cost per call rather than the client's.
 *
 * @module
 */

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function stat(pid: number): { ppid: number; ticks: number } | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // Fields after the command name, which is in parentheses and may contain spaces.
  const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // f[1] = ppid (field 4), f[11] = utime (14), f[12] = stime (15).
  return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
}

/**
 * User + system CPU milliseconds used so far by `pid` and every live descendant (e.g.
 * `npx` and the node server it started); 10 ms resolution.
 *
 * @example
 * ```ts
 * import { treeCpuMs } from "./proc_cpu.ts";
 * console.log(treeCpuMs(Deno.pid));
 * ```
 */
export function treeCpuMs(pid: number): number {
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const s = stat(Number(e.name));
    if (!s) continue;
    ticks.set(Number(e.name), s.ticks);
    const list = children.get(s.ppid) ?? [];
    list.push(Number(e.name));
    children.set(s.ppid, list);
  }
  let total = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.pop()!;
    total += ticks.get(p) ?? 0;
    queue.push(...(children.get(p) ?? []));
  }
  return (total * 1000) / TICKS_PER_SECOND;
}

/** Nanoseconds run so far by the live threads of `pid` (their `schedstat`). */
function threadsNs(pid: number): number | undefined {
  let total = 0;
  try {
    for (const e of Deno.readDirSync(`/proc/${pid}/task`)) {
      try {
        total += Number(
          Deno.readTextFileSync(`/proc/${pid}/task/${e.name}/schedstat`).split(" ")[0],
        );
      } catch { /* the thread ended */ }
    }
  } catch {
    return undefined;
  }
  return total;
}

/**
 * CPU microseconds run so far by `pid` and every live descendant, from the scheduler's
 * per-thread run time (nanosecond resolution, where {@link treeCpuMs} has 10 ms), or
 * `undefined` where `/proc/<pid>/task/*\/schedstat` is not there (then use
 * {@link treeCpuMs}). Threads that ended are not counted: compare batches of a
 * long-lived server, whose threads stay.
 *
 * @example
 * ```ts
 * import { treeCpuUs } from "./proc_cpu.ts";
 * console.log(treeCpuUs(Deno.pid));
 * ```
 */
export function treeCpuUs(pid: number): number | undefined {
  const children = new Map<number, number[]>();
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const s = stat(Number(e.name));
    if (!s) continue;
    const list = children.get(s.ppid) ?? [];
    list.push(Number(e.name));
    children.set(s.ppid, list);
  }
  let total = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.pop()!;
    const ns = threadsNs(p);
    if (ns === undefined) {
      if (p === pid) return undefined;
      continue; // a descendant that just ended
    }
    total += ns;
    queue.push(...(children.get(p) ?? []));
  }
  return total / 1000;
}
