/**
 * Descriptors a sandbox must never inherit. A process passes every descriptor it holds
 * without close-on-exec to each child, and bubblewrap passes them on into the sandbox —
 * to its init (whose `/proc/1/fd` the tool can open) and to the tool — where a folder
 * descriptor from outside reaches the host's files (`/proc/self/fd/N/..`), and a socket or
 * pipe reaches whatever holds its other end. The CLI entries close what toolhost inherited
 * before anything runs (inherited_fds.ts); the library cannot (its host application's
 * descriptors are its own), so a host that leaked one — a shell's job pipe, a folder
 * opened by its own parent, Node's IPC channel — would hand it to every sandbox.
 *
 * So a sandbox's spawn covers each such descriptor: the child gets `/dev/null` at that
 * number instead (the spawn `dup2`s it over; `"ignore"` leaves an inherited descriptor in
 * place under Deno), from a `/dev/null` descriptor of its own per number, kept for the
 * process's life (a host leaks a few, at the same numbers). They are looked up at every spawn (a `/proc/self/fd` listing and one
 * `fdinfo` read each): the runtimes open everything of their own with close-on-exec, so
 * what is found is exactly what the host leaked. A number past {@link MAX_COVERED_FD}
 * refuses the spawn (fail closed) rather than pass it on.
 *
 * @module
 */

import { closeSync, openSync, readdirSync, readFileSync } from "node:fs";
import { ToolhostError } from "../errors/errors.ts";

/** `O_CLOEXEC` as `/proc/PID/fdinfo` prints it (octal flags). */
const O_CLOEXEC = 0o2000000;

/** The highest descriptor number a spawn covers (its `stdio` array grows to it). */
export const MAX_COVERED_FD = 4095;

/**
 * `/dev/null` descriptors by the number they cover, opened once each (close-on-exec:
 * no child inherits these themselves). One per number: Deno's spawn refuses one source
 * descriptor for two numbers (EBADF).
 */
const devNulls = new Map<number, number>();

/**
 * The descriptors from 3 up that this process holds without close-on-exec (what any
 * child inherits), in `/proc/self/fd` order; none where there is no `/proc`.
 *
 * @example
 * ```ts
 * import { leakedFds } from "./leaked_fds.ts";
 * leakedFds(); // [] — or [9] when the host was started as `app … 9</etc/hostname`
 * ```
 */
export function leakedFds(procSelf = "/proc/self"): number[] {
  let names: string[];
  try {
    names = readdirSync(`${procSelf}/fd`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3) continue;
    let info: string;
    try {
      info = readFileSync(`${procSelf}/fdinfo/${fd}`, "latin1");
    } catch {
      continue; // closed meanwhile (the listing's own descriptor included)
    }
    const flags = /^flags:\s+([0-7]+)$/m.exec(info);
    if (flags !== null && (parseInt(flags[1], 8) & O_CLOEXEC) === 0) out.push(fd);
  }
  return out;
}

/** One entry of a spawn's `stdio` array. */
type Entry = "pipe" | "ignore" | number;

/**
 * `stdio` with `/dev/null` at every descriptor number of `leaked` that it leaves to
 * inheritance (past its end, or `"ignore"`); entries it sets stay. Throws a
 * {@linkcode ToolhostError} (`TOOL_ERROR`) for a number past {@link MAX_COVERED_FD}.
 *
 * @example
 * ```ts
 * import { coverLeakedFds } from "./leaked_fds.ts";
 * const stdio = coverLeakedFds(["pipe", "pipe", "pipe"], [5]);
 * console.log(stdio.length, typeof stdio[5]); // 6 "number"
 * ```
 */
export function coverLeakedFds(
  stdio: readonly Entry[],
  leaked: readonly number[] = leakedFds(),
): Entry[] {
  const out = [...stdio];
  const todo: number[] = [];
  for (const fd of leaked) {
    if (fd < out.length && out[fd] !== "ignore") continue; // the spawn puts its own there
    if (fd > MAX_COVERED_FD) {
      throw new ToolhostError(
        "TOOL_ERROR",
        `The tool was refused: this process holds descriptor ${fd} without close-on-exec, ` +
          "and a sandbox would inherit it. Close it (or mark it close-on-exec) before toolhost runs.",
      );
    }
    todo.push(fd);
  }
  if (todo.length === 0) return out;
  while (out.length <= Math.max(...todo)) out.push("ignore");
  const used = new Set(todo);
  out.forEach((e, i) => e !== "ignore" && used.add(i));
  for (const fd of todo) out[fd] = coverFor(fd, used);
  return out;
}

/**
 * The `/dev/null` descriptor covering number `fd`, itself at no number in `used`: Deno's
 * spawn `dup2`s its sources in order, so a source that is also another entry's number is
 * overwritten before it is read (and that entry then ends up closed).
 */
function coverFor(fd: number, used: ReadonlySet<number>): number {
  let cover = devNulls.get(fd);
  const held: number[] = [];
  while (cover === undefined || used.has(cover)) {
    if (cover !== undefined) held.push(cover); // kept open meanwhile: the next one differs
    cover = openSync("/dev/null", "r");
  }
  for (const h of held) closeSync(h);
  devNulls.set(fd, cover);
  return cover;
}
