/**
 * Starting a process as the leader of a new session, cheaply. Under Deno,
 * `spawn(..., { detached: true })` forks the whole Deno process to call `setsid` before
 * `exec` (about 11 ms of toolhost's own CPU and 4 ms of the child's per call on the 2-core
 * bench VM, against 2.4 ms and 5.7 ms for a spawn without it), while a spawn without
 * `detached` takes Deno's `posix_spawn` path. So under Deno on Linux the command is started
 * through util-linux's (or busybox's) `setsid` program without `detached`: the child, not
 * a group leader, calls `setsid()` and `exec`s the command under the same pid. Node's
 * `detached` costs no more than a plain spawn, so Node keeps it (no extra `exec`).
 *
 * The launcher calls `setsid()` only after the spawn returned, so
 * {@linkcode awaitSessionLeader} waits for it before the group is journaled or handed its
 * input: until then the child is in toolhost's own group and session, where no group
 * signal may reach it ({@linkcode killLaunching} ends it by pid, for the exit hook).
 * Failures `exec` would report are checked first ({@linkcode checkExecutable}), so a
 * missing or non-executable command is still a spawn error, not an exit status 126/127.
 *
 * @module
 */

import { accessSync, constants, existsSync, statSync } from "node:fs";
import process from "node:process";
import { type ProcessRecord, readProcStat } from "./proc_identity.ts";
import { SpawnError, spawnFailureFromCode } from "./spawn_error.ts";

/** Where the `setsid` program is looked for (root-owned, not writable by others). */
const CANDIDATES = ["/usr/bin/setsid", "/bin/setsid"];

let chosen: string | null | undefined;

function trustedProgram(path: string): boolean {
  try {
    const st = statSync(path);
    return st.isFile() && st.uid === 0 && (st.mode & 0o022) === 0 && (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * The `setsid` program to start sessions through, or null when a `detached` spawn is used
 * (not Deno, not Linux, no `/proc` to confirm the new session, or no trusted `setsid`).
 * Decided once per process.
 *
 * @example
 * ```ts
 * import { sessionLauncher } from "./session_launcher.ts";
 * console.log(sessionLauncher()); // "/usr/bin/setsid" under Deno on Debian
 * ```
 */
export function sessionLauncher(): string | null {
  if (chosen !== undefined) return chosen;
  chosen = null;
  if (process.versions.deno === undefined || process.platform !== "linux") return chosen;
  if (!existsSync("/proc/self/stat")) return chosen;
  chosen = CANDIDATES.find(trustedProgram) ?? null;
  return chosen;
}

/**
 * Force the launcher choice (`null`: always a `detached` spawn; `undefined`: decide again).
 * For tests of both paths.
 *
 * @example
 * ```ts
 * import { setSessionLauncher } from "./session_launcher.ts";
 * setSessionLauncher(null); // detached spawns from now on
 * setSessionLauncher(undefined);
 * ```
 */
export function setSessionLauncher(path: string | null | undefined): void {
  chosen = path;
}

/**
 * Throw the {@linkcode SpawnError} `exec` would have given: the command is missing, or not
 * executable (no execute permission, or a directory).
 *
 * @example
 * ```ts
 * import { checkExecutable } from "./session_launcher.ts";
 * checkExecutable("/bin/sh"); // fine
 * ```
 */
export function checkExecutable(command: string): void {
  if (!command.includes("/")) return; // a bare name: `setsid` searches the child's PATH
  try {
    accessSync(command, constants.X_OK);
    if (statSync(command).isDirectory()) throw new SpawnError("permission denied");
  } catch (e) {
    if (e instanceof SpawnError) throw e;
    throw new SpawnError(spawnFailureFromCode((e as { code?: string }).code));
  }
}

/** How long a launched child may take to call `setsid()` before it is given up. */
const LEADER_BOUND_MS = 30_000;

/**
 * How long the wait looks again at every turn of the event loop before it sleeps a timer
 * tick (about 1 ms, often more) between looks. The launcher's `exec` and `setsid()` take
 * 0.2-0.6 ms on the bench VM: with two looks before the first tick, half of all calls
 * slept past it (a bounded json call 2.5 -> 1.7 ms with the spin). Each look is one read
 * of `/proc/<pid>/stat`, and other I/O runs between looks.
 */
const SPIN_MS = 2;

function pause(spin: boolean): Promise<void> {
  return new Promise((resolve) => spin ? setImmediate(resolve) : setTimeout(resolve, 1));
}

/**
 * Wait until the launched child leads its own session (`sid === pid` in `/proc`) or has
 * ended (then there is nothing left to wait for). False when it did neither within 30 s.
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { awaitSessionLeader } from "./session_launcher.ts";
 * await awaitSessionLeader(999999999); // true: no such process
 * ```
 */
export async function awaitSessionLeader(pid: number, boundMs = LEADER_BOUND_MS): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  const spinUntil = performance.now() + SPIN_MS;
  for (;;) {
    const st = readProcStat(pid);
    if (st === null || st.state === "Z" || st.state === "X" || st.sid === pid) return true;
    if (Date.now() >= deadline) return false;
    await pause(performance.now() < spinUntil);
  }
}

/**
 * SIGKILL a launched child that has not called `setsid()` yet (it is then alone: the
 * launcher forks nothing): only this process's own child with the recorded start time,
 * still in another session than its own. Synchronous, for the exit hook.
 *
 * @example
 * ```ts
 * import { killLaunching } from "./session_launcher.ts";
 * killLaunching({ pid: 999999999, pgid: 999999999, startTime: 1, bootId: null }); // false
 * ```
 */
export function killLaunching(record: ProcessRecord): boolean {
  const st = readProcStat(record.pid);
  if (st === null || st.startTime !== record.startTime || st.ppid !== process.pid) return false;
  if (st.sid === record.pid) return false; // a session leader: its group is signalled instead
  try {
    process.kill(record.pid, "SIGKILL");
    return true;
  } catch {
    return false;
  }
}
