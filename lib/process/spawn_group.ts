/**
 * Spawning a command as the leader of its own session and process group, with a recorded
 * identity and group-wide signalling. Verified on Deno 2.9.6 (node compat) and Node 20:
 * `spawn(..., { detached: true })`, or under Deno the `setsid` program it is started
 * through (session_launcher.ts), calls `setsid`, so `/proc/<pid>/stat` shows
 * `pgrp === sid === pid`.
 *
 * @module
 */

import { runtimeSafeArgv } from "./runtime_argv.ts";
import { noteOwnChild } from "./adopted.ts";
import { type ChildProcess, spawn } from "node:child_process";
import { Readable, type Writable } from "node:stream";
import { type ProcessRecord, recordProcess } from "./proc_identity.ts";
import { type ExitStatus, type GroupHandle, GroupHandleImpl } from "./group_handle.ts";
import { trackLiveGroup } from "./live_groups.ts";
import type { TerminateReport } from "./kill_group.ts";
import { SpawnError, spawnFailureFromCode } from "./spawn_error.ts";
import { readSandboxInfo, SANDBOX_INFO_FD } from "./sandbox_info.ts";
import { CALL_FD } from "./warm_script.ts";
import { type HeldFds, withBindFds } from "./bind_fds.ts";
import { armDeadMan, bindDeadMan, disarmDeadMan } from "./dead_man.ts";
import {
  awaitSessionLeader,
  checkExecutable,
  killLaunching,
  sessionLauncher,
} from "./session_launcher.ts";
import { GROUP_TAG_VAR, newGroupTag } from "./escape_reaper.ts";

export type { ExitStatus, GroupHandle, HeldInput } from "./group_handle.ts";
export { killLiveGroupsSync } from "./live_groups.ts";

/** Options of {@linkcode spawnGroup}. */
export interface SpawnGroupOptions {
  /** Absolute path of the executable, already resolved by the caller. */
  command: string;
  /** Arguments (argv[1..]). Default none. */
  args?: string[];
  /** Working directory. */
  cwd: string;
  /** The complete environment of the child (nothing is inherited). */
  env: Record<string, string>;
  /** Bytes written to stdin before it is closed. Default: empty (closed at once). */
  stdin?: string | Uint8Array;
  /**
   * `pipe` (default) gives a readable `stderr`; `ignore` sends the child's stderr to
   * /dev/null at the OS level (no cost at all; `stderr` is then an empty stream). Useful
   * for long-lived processes whose output is discarded anyway.
   */
  stderr?: "pipe" | "ignore";
  /**
   * Called with the group's identity right after spawning and awaited before stdin is
   * written, so a supervisor can journal the group before admitting it. If it throws,
   * the group is terminated and `spawnGroup` rejects with that error.
   */
  onSpawn?: (record: ProcessRecord) => void | Promise<void>;
  /**
   * Called synchronously with the output streams right after the spawn, before
   * `onSpawn` is awaited, so readers are attached before the child can exit (a child that
   * exits with nobody reading has its unread output discarded by child_process).
   */
  onStreams?: (stdout: Readable, stderr: Readable) => void;
  /**
   * The command is a sandbox (`bwrap` with a new PID namespace, lib/sandbox): ending the
   * group first SIGTERMs every process inside the namespace, waits the grace, then
   * SIGKILLs the namespace's init, so the kernel ends every process inside, including
   * those that left the group. Default false.
   */
  sandboxed?: boolean;
  /**
   * Keep the input for later (a warm spare's waiter, warm_script.ts): `stdin` is not
   * written or closed, and file descriptor 4 (`CALL_FD`) is one more pipe; both are
   * returned as {@linkcode GroupHandle.held}. `"stdin"`: no extra descriptor (under Deno
   * one costs a fork of the whole runtime), the call line goes to stdin before the
   * tool's input, and `held.call` is `held.stdin`. Default false.
   */
  holdInput?: boolean | "stdin";
  /**
   * A sandbox's bind sources (bind_fds.ts): the child's fds from `BIND_FD_BASE`. Closed
   * here as soon as the spawn has returned (the child has its copies), whatever happens.
   */
  binds?: HeldFds;
}

/**
 * Spawn `command` in its own session and process group, record its identity, call
 * `onSpawn`, write `stdin` and close it. Rejects with {@linkcode SpawnError} (generic
 * reason, no paths) when the command cannot be started.
 *
 * @example
 * ```ts
 * import { spawnGroup } from "./spawn_group.ts";
 * const h = await spawnGroup({ command: "/bin/sleep", args: ["10"], cwd: "/", env: {} });
 * h.stdout.resume();
 * h.stderr.resume();
 * await h.terminate({ graceMs: 100 });
 * console.log((await h.exited).signal); // "SIGTERM"
 * ```
 */
export async function spawnGroup(options: SpawnGroupOptions): Promise<GroupHandle> {
  const tag = newGroupTag();
  // bwrap's --die-with-parent has windows after clone; the dead man's switch has none. An
  // unconfined group is armed only until it is journaled (onSpawn): a toolhost killed
  // between its spawn and its record must not leave a process that no record names.
  // An unconfined waiter holding its call on stdin (warm_script.ts) needs no switch: it
  // runs nothing but a whole line read from this process, and reads end-of-file when it
  // dies (each arm, bind and strike costs the watcher's shell a wake-up).
  const sandboxed = options.sandboxed === true;
  if (sandboxed || options.holdInput !== "stdin") armDeadMan(tag);
  // Under Deno, `setsid PROGRAM` costs far less than a detached spawn (session_launcher.ts).
  const launcher = sessionLauncher();
  const child = launchChild(options, tag, launcher);
  if (child.pid === undefined) {
    disarmDeadMan(tag);
    throw await spawnFailure(child);
  }
  // Synchronously, before the event loop can reap the child.
  bindDeadMan(tag, child.pid);
  const record: ProcessRecord = { ...recordProcess(child.pid), tag };
  const handle = groupHandleOf(child, record, tag, sandboxed);
  options.onStreams?.(handle.stdout, handle.stderr);
  const stdin = child.stdin!;
  stdin.on("error", () => {}); // EPIPE when the tool does not read its input
  const call = options.holdInput === "stdin"
    ? stdin
    : options.holdInput
    ? child.stdio[CALL_FD] as Writable
    : undefined;
  call?.on("error", () => {});
  try {
    if (launcher !== null) await becomeLeader(handle, stdin, call);
    await admit(handle, options, stdin, call);
  } finally {
    // Unconfined: journaled by now (or ended); its record covers it from here on.
    if (!sandboxed) disarmDeadMan(tag);
  }
  if (call !== undefined) {
    handle.held = { stdin, call };
    return handle;
  }
  const input = options.stdin;
  if (input === undefined || input.length === 0) stdin.end();
  else stdin.end(input);
  return handle;
}

/**
 * Spawn the command (through `launcher` when there is one), tagged with `tag`, and note
 * the child as toolhost's own at once (never taken for an adopted orphan). Throws the
 * {@linkcode SpawnError} `exec` would give when the launcher cannot report it; the binds
 * are closed whatever happens.
 */
function launchChild(
  options: SpawnGroupOptions,
  tag: string,
  launcher: string | null,
): ChildProcess {
  if (launcher !== null) {
    try {
      checkExecutable(options.command);
    } catch (e) {
      disarmDeadMan(tag);
      options.binds?.close();
      throw e;
    }
  }
  // Deno rewrites an argv naming its own binary (runtime_argv.ts).
  const argv = launcher === null
    ? runtimeSafeArgv(options.command, options.args ?? [])
    : runtimeSafeArgv(launcher, ["--", options.command, ...options.args ?? []]);
  let child: ChildProcess;
  try {
    child = spawn(argv.command, argv.args, {
      cwd: options.cwd,
      env: { ...options.env, [GROUP_TAG_VAR]: tag },
      detached: launcher === null,
      stdio: withBindFds(stdioOf(options), options.binds),
      windowsHide: true,
    });
  } finally {
    options.binds?.close();
  }
  noteOwnChild(child.pid);
  return child;
}

/** The {@linkcode SpawnError} of a child that got no pid, from its `error` event's code. */
async function spawnFailure(child: ChildProcess): Promise<SpawnError> {
  const code = await new Promise<string | undefined>((resolve) => {
    child.once("error", (e: Error & { code?: string }) => resolve(e.code));
  });
  return new SpawnError(spawnFailureFromCode(code));
}

/** The handle of a spawned group, tracked as live (a sandbox's init read from its info fd). */
function groupHandleOf(
  child: ChildProcess,
  record: ProcessRecord,
  tag: string,
  sandboxed: boolean,
): GroupHandleImpl {
  child.on("error", () => {});
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once("exit", (exitCode, signal) => resolve({ exitCode, signal }));
  });
  const stderr = child.stderr ?? Readable.from([]);
  const info = child.stdio[SANDBOX_INFO_FD] as Readable | null | undefined;
  const init = sandboxed ? (info ? readSandboxInfo(info) : Promise.resolve(undefined)) : undefined;
  const handle = new GroupHandleImpl(record, child.stdout!, stderr, exited, tag, init);
  trackLiveGroup(handle);
  return handle;
}

/** The child's descriptors: a sandbox's bwrap writes its init to fd 3 (`--info-fd`); a
 * held input's call line goes to fd 4 (`CALL_FD`). */
function stdioOf(options: SpawnGroupOptions): ("pipe" | "ignore")[] {
  const out: ("pipe" | "ignore")[] = ["pipe", "pipe", options.stderr ?? "pipe"];
  const fd4 = options.holdInput === true;
  if (options.sandboxed === true || fd4) out.push(options.sandboxed === true ? "pipe" : "ignore");
  if (fd4) out.push("pipe");
  return out;
}

/** Await `onSpawn`; if it throws, end the group and rethrow. */
async function admit(
  handle: GroupHandleImpl,
  options: SpawnGroupOptions,
  stdin: Writable,
  call: Writable | undefined,
): Promise<void> {
  if (options.onSpawn === undefined) return;
  try {
    await options.onSpawn(handle.record);
  } catch (e) {
    await abandonGroup(handle, [stdin, call]);
    throw e;
  }
}

/**
 * End a group that will never run its call: close the inputs held open for it (stdin,
 * a warm sandbox's call line), drain its output, and end it with no grace.
 *
 * @example
 * ```ts
 * import { abandonGroup, spawnGroup } from "./spawn_group.ts";
 * const h = await spawnGroup({ command: "/bin/sleep", args: ["10"], cwd: "/", env: {} });
 * console.log((await abandonGroup(h, [])).confirmed); // true
 * ```
 */
export async function abandonGroup(
  handle: GroupHandle,
  inputs: readonly (Writable | undefined)[],
): Promise<TerminateReport> {
  for (const s of inputs) s?.destroy();
  handle.stdout.resume();
  handle.stderr.resume();
  return await handle.terminate({ graceMs: 0 });
}

/** Wait until a launched child leads its own session; if it never does, end it and fail
 * the spawn (nothing was journaled or written to it yet). */
async function becomeLeader(
  handle: GroupHandleImpl,
  stdin: Writable,
  call: Writable | undefined,
): Promise<void> {
  handle.launching = true;
  const leads = await awaitSessionLeader(handle.record.pid);
  handle.launching = false;
  if (leads) return;
  killLaunching(handle.record); // or, had it just become a leader, its group:
  await abandonGroup(handle, [stdin, call]);
  await handle.exited;
  throw new SpawnError("failed");
}
