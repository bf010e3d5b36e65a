/**
 * Spawning a command as the leader of its own session and process group, with a recorded
 * identity and group-wide signalling. Verified on Deno 2.9.6 (node compat) and Node 20:
 * `spawn(..., { detached: true })` calls `setsid`, so `/proc/<pid>/stat` shows
 * `pgrp === sid === pid`.
 *
 * @module
 */

import { runtimeSafeArgv } from "./runtime_argv.ts";
import { onLastResort } from "./last_resort.ts";
import { endAdoptedOf, noteOwnChild } from "./adopted.ts";
import { spawn } from "node:child_process";
import { Readable, type Writable } from "node:stream";
import { type ProcessRecord, recordProcess } from "./proc_identity.ts";
import {
  signalGroup,
  type SignalOutcome,
  terminateGroup,
  type TerminateOptions,
  type TerminateReport,
} from "./kill_group.ts";
import { SpawnError, spawnFailureFromCode } from "./spawn_error.ts";
import { endSandbox } from "./sandbox_end.ts";
import { endInit, readSandboxInfo, SANDBOX_INFO_FD, type SandboxInfo } from "./sandbox_info.ts";
import { CALL_FD } from "./warm_script.ts";
import { type HeldFds, withBindFds } from "./bind_fds.ts";
import { armDeadMan, bindDeadMan, disarmDeadMan } from "./dead_man.ts";
import {
  awaitSessionLeader,
  checkExecutable,
  killLaunching,
  sessionLauncher,
} from "./session_launcher.ts";
import {
  forgetOwnLeader,
  GROUP_TAG_VAR,
  newGroupTag,
  noteOwnLeader,
  reapEscapesConfirmed,
  reapTaggedEscapes,
} from "./escape_reaper.ts";

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

/** The input ends of a group spawned with `holdInput`. */
export interface HeldInput {
  /** The leader's stdin. */
  stdin: Writable;
  /** The leader's file descriptor 4 (`CALL_FD`), or its stdin (`holdInput: "stdin"`). */
  call: Writable;
}

/** How the leader ended. */
export interface ExitStatus {
  /** Exit status, or null when killed by a signal. */
  exitCode: number | null;
  /** Signal name such as `SIGKILL`, or null. */
  signal: string | null;
}

/** A running process group. */
export interface GroupHandle {
  /** The recorded identity (`pgid === pid`). */
  readonly record: ProcessRecord;
  /** The group's random tag (`_TOOLHOST_GROUP_TAG` in its environment); never shown. */
  readonly tag: string;
  /** The leader's stdout; read it (or `resume()` it) or the child may block. */
  readonly stdout: Readable;
  /** The leader's stderr; read it (or `resume()` it) or the child may block. */
  readonly stderr: Readable;
  /** Resolves when the leader has exited and been reaped. */
  readonly exited: Promise<ExitStatus>;
  /** The leader's status once exited, else null. */
  readonly exitStatus: ExitStatus | null;
  /** The input ends, when spawned with `holdInput` (else undefined). */
  readonly held?: HeldInput;
  /** Signal the whole group after the identity check. */
  killGroup(signal?: NodeJS.Signals): SignalOutcome;
  /**
   * SIGTERM the group, SIGKILL after `graceMs` (default 2000), and confirm via `/proc`
   * that no member runs. Calls are serialized; each re-checks the group.
   */
  terminate(options?: TerminateOptions): Promise<TerminateReport>;
}

const unconfirmed = new Set<GroupHandleImpl>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  onLastResort(killLiveGroupsSync);
}

/**
 * Last-resort synchronous cleanup: SIGKILL every group started by this process whose
 * termination has not been confirmed yet. Runs as a last resort (last_resort.ts: `exit`,
 * and Deno's uncaught errors); a CLI
 * may also call it from its own SIGINT/SIGTERM handlers. Returns how many were signalled.
 *
 * @example
 * ```ts
 * import { killLiveGroupsSync } from "./spawn_group.ts";
 * killLiveGroupsSync(); // 0 when nothing is running
 * ```
 */
export function killLiveGroupsSync(): number {
  let n = 0;
  for (const handle of unconfirmed) {
    // Not a session leader yet (session_launcher.ts): no group signal can reach it.
    if (handle.launching && killLaunching(handle.record)) n++;
    if (signalGroup(handle.record, "SIGKILL") === "signalled") n++;
    const { pid, startTime } = handle.record;
    n += reapTaggedEscapes({ tag: handle.tag, pid, startTime }).length;
  }
  return n;
}

/** The group is gone for good: forget it, and strike it off the dead man's switch. */
function settled(handle: GroupHandleImpl): void {
  unconfirmed.delete(handle);
  forgetOwnLeader(handle.record.pid, handle.record.startTime);
  if (handle.sandboxed) disarmDeadMan(handle.tag);
}

class GroupHandleImpl implements GroupHandle {
  readonly record: ProcessRecord;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly exited: Promise<ExitStatus>;
  exitStatus: ExitStatus | null = null;
  held?: HeldInput;
  readonly tag: string;
  readonly sandboxed: boolean;
  /** Started through the session launcher and not yet seen leading its own session. */
  launching = false;
  /** A sandbox's init, as bwrap reported it (undefined when it did not). */
  readonly #init: Promise<SandboxInfo | undefined>;
  #chain: Promise<unknown> = Promise.resolve();
  #confirmed = false;

  constructor(
    record: ProcessRecord,
    stdout: Readable,
    stderr: Readable,
    exited: Promise<ExitStatus>,
    tag: string,
    init: Promise<SandboxInfo | undefined> | undefined,
  ) {
    this.record = record;
    this.tag = tag;
    this.sandboxed = init !== undefined;
    this.#init = init ?? Promise.resolve(undefined);
    this.stdout = stdout;
    this.stderr = stderr;
    this.exited = exited.then((s) => {
      this.exitStatus = s;
      // The leader (bwrap) is gone: its init has died or dies by its own death signal,
      // armed long before. A listed pid could now be reused by someone else's group.
      if (this.sandboxed) disarmDeadMan(tag);
      if (this.#confirmed) settled(this);
      return s;
    });
  }

  killGroup(signal: NodeJS.Signals = "SIGKILL"): SignalOutcome {
    return signalGroup(this.record, signal);
  }

  terminate(options: TerminateOptions = {}): Promise<TerminateReport> {
    const next = this.#chain.then(async () => {
      const ended = this.sandboxed ? await this.#endSandbox(options) : undefined;
      const report = ended ?? await terminateGroup(this.record, options);
      // The group is gone; so must be anything of it that left with setsid (a sandbox
      // ended by its init has nothing left anywhere: its PID namespace held it all).
      const reaped = ended !== undefined || await this.#reapEscapes();
      this.#confirmed = report.confirmed && reaped;
      if (report.confirmed && this.exitStatus !== null) settled(this);
      return report;
    });
    this.#chain = next.catch(() => undefined);
    return next;
  }

  /** What left the group: tagged processes, and orphans re-parented to this process. */
  async #reapEscapes(): Promise<boolean> {
    const { pid, startTime } = this.record;
    const tagged = await reapEscapesConfirmed({ tag: this.tag, pid, startTime });
    return await endAdoptedOf(this.record) && tagged;
  }

  /**
   * End a sandbox: SIGTERM inside it, the grace, then its init's SIGKILL ends everything
   * in it (bwrap forwards no signal; its own group's SIGTERM would end the sandbox at
   * once). Confirmed by two facts, without a `/proc` scan: the init bwrap reported has
   * ended, and bwrap (the leader) has exited. Undefined when either cannot be told:
   * the caller then ends the group the unconfined way.
   */
  async #endSandbox(options: TerminateOptions): Promise<TerminateReport | undefined> {
    const warned = await endSandbox(this.record, options.graceMs ?? 2000);
    const bound = options.killBoundMs ?? 5000;
    const init = await within(this.#init, bound);
    if (init == null || !(await endInit(init, bound))) return undefined;
    // bwrap exits as soon as its init has ended.
    const status = await within(this.exited, bound);
    return status === null ? undefined : { confirmed: true, signalled: warned };
  }
}

/** `p`, or null when it has not settled within `ms`. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
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
  let child: ReturnType<typeof spawn>;
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
  noteOwnChild(child.pid); // synchronously: never taken for an adopted orphan
  if (child.pid === undefined) {
    disarmDeadMan(tag);
    const code = await new Promise<string | undefined>((resolve) => {
      child.once("error", (e: Error & { code?: string }) => resolve(e.code));
    });
    throw new SpawnError(spawnFailureFromCode(code));
  }
  // Synchronously, before the event loop can reap the child.
  bindDeadMan(tag, child.pid);
  const record: ProcessRecord = { ...recordProcess(child.pid), tag };
  child.on("error", () => {});
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once("exit", (exitCode, signal) => resolve({ exitCode, signal }));
  });
  const stderr = child.stderr ?? Readable.from([]);
  const info = child.stdio[SANDBOX_INFO_FD] as Readable | null | undefined;
  const init = sandboxed ? (info ? readSandboxInfo(info) : Promise.resolve(undefined)) : undefined;
  const handle = new GroupHandleImpl(record, child.stdout!, stderr, exited, tag, init);
  installExitHook();
  unconfirmed.add(handle);
  noteOwnLeader(record.pid, record.startTime); // forgotten when settled
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
