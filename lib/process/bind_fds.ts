/**
 * Descriptors a sandbox's bind mounts are made from (lib/sandbox/bind_sources.ts opens and
 * checks them; bwrap's `--bind-fd N DEST` / `--ro-bind-fd N DEST` mounts exactly the
 * object each one holds, never whatever a path names by the time bwrap gets to it). They
 * reach bwrap as its file descriptors {@link BIND_FD_BASE}, `BIND_FD_BASE + 1`, … (fd 3
 * is `--info-fd`, fd 4 a warm spare's call line or closed); bwrap closes each one once
 * its mount is made, so the sandboxed program never holds one.
 *
 * One owner: whoever got a {@linkcode HeldFds} closes it (idempotent) once the spawn that
 * passes it has returned, or when it never happens.
 *
 * @module
 */

import { closeSync } from "node:fs";
import { coverLeakedFds } from "./leaked_fds.ts";

/** bwrap's first bind descriptor (fd 3: `--info-fd`; fd 4: a warm spare's call line). */
export const BIND_FD_BASE = 5;

/**
 * Open descriptors, in the order they become the child's fds from {@link BIND_FD_BASE}.
 *
 * @example
 * ```ts
 * import { openSync } from "node:fs";
 * import { HeldFds } from "./bind_fds.ts";
 * const held = new HeldFds([openSync("/", "r")]);
 * held.close();
 * held.close(); // closing twice closes nothing twice
 * ```
 */
export class HeldFds {
  #fds: number[] | undefined;

  constructor(fds: readonly number[]) {
    this.#fds = [...fds];
  }

  /** The descriptors (empty once closed). */
  get fds(): readonly number[] {
    return this.#fds ?? [];
  }

  /** Close every descriptor, once. */
  close(): void {
    const fds = this.#fds;
    this.#fds = undefined;
    for (const fd of fds ?? []) {
      try {
        closeSync(fd);
      } catch { /* already closed */ }
    }
  }
}

/** One entry of a spawn's `stdio` array. */
export type StdioEntry = "pipe" | "ignore" | number;

/**
 * `stdio` (fds 0 to 3 or 4) extended so that `held`'s descriptors become the child's fds
 * from {@link BIND_FD_BASE}; with `held` (a sandbox's spawn), every other descriptor this
 * process would let the child inherit is covered with `/dev/null` (leaked_fds.ts).
 *
 * @example
 * ```ts
 * import { HeldFds, withBindFds } from "./bind_fds.ts";
 * withBindFds(["pipe", "pipe", "pipe", "pipe"], new HeldFds([]));
 * // ["pipe", "pipe", "pipe", "pipe"]
 * ```
 */
export function withBindFds(
  stdio: readonly StdioEntry[],
  held: HeldFds | undefined,
): StdioEntry[] {
  const fds = held?.fds ?? [];
  const out = [...stdio];
  if (fds.length > 0) {
    while (out.length < BIND_FD_BASE) out.push("ignore");
    out.push(...fds);
  }
  // A sandbox's spawn: nothing else of this process reaches it (leaked_fds.ts).
  return held === undefined ? out : coverLeakedFds(out);
}
