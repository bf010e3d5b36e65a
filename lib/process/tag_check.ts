/**
 * Whether a process carries a group's tag, read so that a process in the middle of an
 * `exec` is not mistaken for one that lacks it. While the kernel replaces a process's
 * image, `/proc/PID/environ` reads empty or cut short (the new memory map has no
 * environment yet), although the process is the same and its new environment will carry
 * the tag: toolhost's own groups start through a `setsid` launcher that `exec`s the
 * command, and a sweep may look at one at that instant. So the environment's bounds
 * (`/proc/PID/stat` fields 50–51) are read before and after the environment: when they
 * are unset or moved, an `exec` was under way and the answer is `unsettled` — neither
 * ours nor foreign, to be looked at again later — never `lacks`.
 *
 * @module
 */

import { closeSync, openSync, readFileSync } from "node:fs";
import { carriesGroupTag } from "./escape_reaper.ts";

/** What reading a process's environment showed. */
export type TagVerdict = "carries" | "lacks" | "unsettled";

/** Reads of one process's environment before giving up on a settled answer. */
const ATTEMPTS = 3;

/** Start time and environment bounds of `pid` (stat fields 22, 50, 51), or null. */
function envBounds(pid: number): string | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "latin1");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    // Fields after the command name start at field 3 (state).
    const [start, envStart, envEnd] = [f[22 - 3], f[50 - 3], f[51 - 3]];
    if (envStart === undefined || envEnd === undefined) return null;
    return `${start} ${envStart} ${envEnd.trim()}`;
  } catch {
    return null;
  }
}

function readable(pid: number): boolean {
  try {
    closeSync(openSync(`/proc/${pid}/environ`, "r"));
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `pid`, started at `startTime`, carries `tag` in its environment: `carries`,
 * `lacks` (its environment is settled and holds no such entry, or cannot be read at all:
 * another user's process, or gone), or `unsettled` (an `exec` was under way every time
 * it was read).
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { tagVerdict } from "./tag_check.ts";
 * tagVerdict(process.pid, 0, "0123456789abcdef0123456789abcdef"); // "lacks"
 * ```
 */
export function tagVerdict(pid: number, startTime: number, tag: string): TagVerdict {
  for (let i = 0; i < ATTEMPTS; i++) {
    const before = envBounds(pid);
    if (carriesGroupTag(pid, tag)) {
      return envBounds(pid)?.startsWith(`${startTime} `) ? "carries" : "lacks";
    }
    if (!readable(pid)) return "lacks";
    const after = envBounds(pid);
    if (before === null || after === null) return "lacks"; // gone meanwhile
    if (!after.startsWith(`${startTime} `)) return "lacks"; // another process by now
    const settled = before === after && !after.endsWith(" 0");
    if (settled) return "lacks";
  }
  return "unsettled";
}
