/**
 * rlimit enforcement through `prlimit` (util-linux): the command is started as
 * `prlimit --data=BYTES --cpu=SOFT:HARD -- CMD ARGS...`, which sets the limits on itself
 * and then `exec`s the command, so they apply to it and are inherited by everything it
 * starts (each process separately).
 *
 * - Memory: the resident memory of every descendant (descendants.ts) is held to
 *   `max_memory_mb` by toolhost's watchdog; `RLIMIT_DATA` (private writable memory: heap, anonymous mappings) at
 *   {@link dataBackstopBytes} — the larger of twice the limit and the limit plus 1 GiB —
 *   is the kernel's hard backstop per process. The headroom is needed because runtimes
 *   reserve writable memory up front (Deno ~600 MiB of `VmData` at start). `RLIMIT_AS` is
 *   not used: runtimes reserve far more address space than they use (Node refuses to
 *   start under a 512 MiB `RLIMIT_AS`).
 * - CPU: `RLIMIT_CPU` soft at `max_cpu_seconds + 1` (SIGXCPU), hard one second later
 *   (SIGKILL), per process; the watchdog holds the tree's total to `max_cpu_seconds`.
 * - Processes: `RLIMIT_NPROC` is not used: it counts every thread of the user across all
 *   their processes (and is ignored for root), so no per-tool value is both safe and
 *   meaningful; the watchdog counts every descendant instead.
 *
 * @module
 */

import { statSync } from "node:fs";
import { join } from "node:path";
import type { ResourceLimits } from "./types.ts";

/**
 * Find `prlimit` in the usual bin/sbin folders, then on `PATH`, or undefined.
 *
 * @example
 * ```ts
 * import { findPrlimit } from "./rlimit.ts";
 * findPrlimit("/usr/bin:/bin"); // "/usr/bin/prlimit" where util-linux is installed
 * ```
 */
export function findPrlimit(path: string | undefined): string | undefined {
  // System folders first: prlimit runs outside the sandbox it wraps, and a PATH folder may
  // be one a confined tool can write.
  const dirs = ["/usr/bin", "/bin", "/usr/sbin", "/sbin", ...(path ?? "").split(":")];
  for (const d of dirs) {
    if (!d.startsWith("/")) continue;
    const candidate = join(d, "prlimit");
    try {
      const st = statSync(candidate);
      if (st.isFile() && (st.mode & 0o111) !== 0) return candidate;
    } catch { /* next */ }
  }
  return undefined;
}

/**
 * The per-process `RLIMIT_DATA` backstop for `max_memory_mb`, in bytes:
 * `max(2 × limit, limit + 1 GiB)`.
 *
 * @example
 * ```ts
 * import { dataBackstopBytes } from "./rlimit.ts";
 * dataBackstopBytes(2048) / 2 ** 20; // 4096
 * dataBackstopBytes(64) / 2 ** 20; // 1088
 * ```
 */
export function dataBackstopBytes(maxMemoryMb: number): number {
  const mib = 1024 * 1024;
  return Math.max(2 * maxMemoryMb, maxMemoryMb + 1024) * mib;
}

/**
 * The `prlimit` command line for `limits`, or the command unchanged when no kernel
 * limit applies (only `max_processes`, which the watchdog enforces).
 *
 * @example
 * ```ts
 * import { prlimitCommand } from "./rlimit.ts";
 * prlimitCommand("/usr/bin/prlimit", { maxCpuSeconds: 2 }, "/bin/sh", ["-c", "x"]);
 * // { command: "/usr/bin/prlimit", args: ["--cpu=3:4", "--", "/bin/sh", "-c", "x"] }
 * ```
 */
export function prlimitCommand(
  prlimit: string,
  limits: ResourceLimits,
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  const flags: string[] = [];
  if (limits.maxMemoryMb !== undefined) {
    flags.push(`--data=${dataBackstopBytes(limits.maxMemoryMb)}`);
  }
  if (limits.maxCpuSeconds !== undefined) {
    flags.push(`--cpu=${limits.maxCpuSeconds + 1}:${limits.maxCpuSeconds + 2}`);
  }
  if (flags.length === 0) return { command, args: [...args] };
  return { command: prlimit, args: [...flags, "--", command, ...args] };
}
