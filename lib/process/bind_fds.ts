/**
 * Descriptors a sandbox's bind mounts are made from (lib/sandbox/bind_sources.ts opens and
 * checks them; bwrap's `--bind-fd N DEST` / `--ro-bind-fd N DEST` mounts exactly the
 * object each one holds, never whatever a path names by the time bwrap gets to it). They
 * reach bwrap as its file descriptors {@link BIND_FD_BASE}, `BIND_FD_BASE + 1`, … (fd 3
 * is `--info-fd`, fd 4 a warm spare's call line or closed); bwrap closes each one once
 * its mount is made, so the sandboxed program never holds one.
 *
 * Deno's spawn places its extra descriptors in order — `dup2(source, position)`, then it
 * closes the source — so a source numbered like a position an earlier entry sets would be
 * read after it was overwritten: that bind would get the earlier one's object, and the
 * earlier position would end up closed (bwrap fails on it). The sources are opened in
 * order, but another thread (the runtime's blocking pool, a host's own I/O) may free a
 * number below meanwhile, so one can land below its position. Such a source is re-opened
 * at a number no entry sets (through `/proc/self/fd/N`: the same object, confirmed by
 * device and inode), as the covers of leaked_fds.ts are. Node's spawn needs none of this
 * (libuv moves such sources out of the way itself); the copy costs it nothing it would miss.
 *
 * One owner: whoever got a {@linkcode HeldFds} closes it (idempotent) once the spawn that
 * passes it has returned, or when it never happens; that closes its copies too.
 *
 * @module
 */

import { closeSync, fstatSync, openSync } from "node:fs";
import { ToolhostError } from "../errors/errors.ts";
import { coverLeakedFds } from "./leaked_fds.ts";

/** Linux's `O_PATH` (not in `fs.constants`): the bind sources are `O_PATH` descriptors. */
const O_PATH = 0o10000000;

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
  #copies: number[] = [];

  constructor(fds: readonly number[]) {
    this.#fds = [...fds];
  }

  /** The descriptors (empty once closed). */
  get fds(): readonly number[] {
    return this.#fds ?? [];
  }

  /**
   * A copy of `fd` (one of these, an `O_PATH` descriptor) at a number outside `avoid`,
   * closed with the rest. Throws a {@linkcode ToolhostError} (`TOOL_ERROR`) when the copy
   * is not the same object (fail closed).
   */
  copyOutside(fd: number, avoid: ReadonlySet<number>): number {
    const passed: number[] = [];
    let copy: number | undefined;
    try {
      while (copy === undefined || avoid.has(copy)) {
        if (copy !== undefined) passed.push(copy); // kept open meanwhile: the next one differs
        copy = openSync(`/proc/self/fd/${fd}`, O_PATH);
      }
    } finally {
      for (const p of passed) closeSync(p);
    }
    this.#copies.push(copy);
    const [a, b] = [fstatSync(fd), fstatSync(copy)];
    if (a.dev !== b.dev || a.ino !== b.ino) {
      throw new ToolhostError(
        "TOOL_ERROR",
        "The tool was refused: a path its sandbox binds could not be passed to it.",
      );
    }
    return copy;
  }

  /** Close every descriptor, once. */
  close(): void {
    const fds = [...this.#fds ?? [], ...this.#copies];
    this.#fds = undefined;
    this.#copies = [];
    for (const fd of fds) {
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
  if (held !== undefined && fds.length > 0) {
    while (out.length < BIND_FD_BASE) out.push("ignore");
    const sets = new Set<number>(); // every position an entry sets
    out.forEach((e, i) => e !== "ignore" && sets.add(i));
    for (let i = 0; i < fds.length; i++) sets.add(BIND_FD_BASE + i);
    for (const fd of fds) {
      // A number an earlier entry sets is overwritten before Deno reads it (module doc).
      out.push(fd < out.length && sets.has(fd) ? held.copyOutside(fd, sets) : fd);
    }
  }
  // A sandbox's spawn: nothing else of this process reaches it (leaked_fds.ts).
  return held === undefined ? out : coverLeakedFds(out);
}
