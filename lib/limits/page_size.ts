/**
 * The kernel page size, for turning `/proc/<pid>/statm` page counts into bytes.
 *
 * @module
 */

import { readFileSync } from "node:fs";

let pageSize: number | undefined;

/**
 * The kernel page size, derived once from this process's `/proc/self/status` and
 * `/proc/self/statm` (4096 when they cannot be read).
 *
 * @example
 * ```ts
 * import { systemPageSize } from "./page_size.ts";
 * systemPageSize(); // 4096 on x86-64
 * ```
 */
export function systemPageSize(): number {
  if (pageSize !== undefined) return pageSize;
  pageSize = 4096;
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync("/proc/self/status", "latin1"))?.[1]);
    const pages = Number(readFileSync("/proc/self/statm", "latin1").split(" ")[1]);
    const ratio = (kb * 1024) / pages;
    const best = [4096, 16384, 65536].reduce((a, b) =>
      Math.abs(b - ratio) < Math.abs(a - ratio) ? b : a
    );
    if (Number.isFinite(ratio)) pageSize = best;
  } catch { /* keep 4096 */ }
  return pageSize;
}
