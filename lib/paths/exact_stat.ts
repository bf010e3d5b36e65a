/**
 * `lstat`/`fstat` for identity checks (device and inode), exact without paying for
 * BigInt stats on every call: the plain (number) stats are taken first, and only when a
 * device or inode number is beyond what a double holds exactly (≥ 2^53, where two
 * objects could compare equal) are the stats taken again as BigInts. Under Deno the
 * BigInt variant was about half again the CPU of the plain one per `lstat`.
 *
 * @module
 */

import fs from "node:fs";
import process from "node:process";

/** Stats whose `dev` and `ino` are exact: numbers below 2^53, or BigInts. */
export type ExactStats = fs.Stats | fs.BigIntStats;

/** An object's exact identity: device and inode, numbers below 2^53 or BigInts. */
export interface ObjectIdentity {
  /** Device number. */
  readonly dev: number | bigint;
  /** Inode number. */
  readonly ino: number | bigint;
}

/**
 * `lstatSync(p)` with exact identity; undefined when nothing is there. Throws what
 * `lstatSync` throws.
 *
 * @example
 * ```ts
 * import { lstatExact } from "./exact_stat.ts";
 * lstatExact("/tmp")?.isDirectory(); // true
 * ```
 */
export function lstatExact(p: string): ExactStats | undefined {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  if (st === undefined || exactIdentity(st)) return st;
  return fs.lstatSync(p, { bigint: true, throwIfNoEntry: false });
}

/**
 * `fstatSync(fd)` with exact identity; with `procfs` (the caller knows `/proc/self/fd`
 * works) under Deno, a `stat` of `/proc/self/fd/<fd>` instead. Throws what they throw.
 *
 * @example
 * ```ts
 * import fs from "node:fs";
import process from "node:process";
 * import { fstatExact } from "./exact_stat.ts";
 * const fd = fs.openSync("/tmp", "r");
 * fstatExact(fd).isDirectory(); // true
 * fs.closeSync(fd);
 * ```
 */
export function fstatExact(fd: number, procfs = false): ExactStats {
  const st = procfs && STAT_BY_PROC_PATH ? fs.statSync(`/proc/self/fd/${fd}`) : fs.fstatSync(fd);
  return exactIdentity(st) ? st : fs.fstatSync(fd, { bigint: true });
}

/**
 * Whether a `stat` of `/proc/self/fd/N` costs less than `fstatSync(N)`: under Deno (its
 * `fstatSync` converts through an extra object; ~7.5 against ~11.5 µs, see
 * lib/pins/proc_fd.ts), not under Node. The kernel resolves that magic link to the very
 * file open on the descriptor, so the answer is the `fstat`'s.
 */
const STAT_BY_PROC_PATH = typeof process.versions.deno === "string";

/**
 * Whether `a` and `b` are the same object (device and inode), whichever kind of stats.
 *
 * @example
 * ```ts
 * import { lstatExact, sameObject } from "./exact_stat.ts";
 * sameObject(lstatExact("/tmp")!, lstatExact("/tmp")!); // true
 * ```
 */
export function sameObject(a: ExactStats, b: ExactStats): boolean {
  if (typeof a.ino === typeof b.ino) return a.dev === b.dev && a.ino === b.ino;
  return identityKey(a) === identityKey(b); // exact: numbers here are below 2^53
}

/**
 * `dev:ino` of `st`, the same text for a number and a BigInt of the same value.
 *
 * @example
 * ```ts
 * import { identityKey, lstatExact } from "./exact_stat.ts";
 * identityKey(lstatExact("/tmp")!); // e.g. "2049:131073"
 * ```
 */
export function identityKey(st: ObjectIdentity): string {
  return `${st.dev}:${st.ino}`;
}

function exactIdentity(st: fs.Stats): boolean {
  return Number.isSafeInteger(st.dev) && Number.isSafeInteger(st.ino);
}
