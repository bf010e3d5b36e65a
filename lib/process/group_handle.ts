/**
 * A running process group's handle: how its leader ended, group-wide signals, and a
 * serialized, confirmed termination (a sandbox is ended by its init, sandbox_info.ts).
 * Made by `spawnGroup` (spawn_group.ts).
 *
 * @module
 */

import type { Readable, Writable } from "node:stream";
import { endAdoptedOf } from "./adopted.ts";
import type { ProcessRecord } from "./proc_identity.ts";
import {
  signalGroup,
  type SignalOutcome,
  terminateGroup,
  type TerminateOptions,
  type TerminateReport,
} from "./kill_group.ts";
import { endSandbox } from "./sandbox_end.ts";
import { endInit, type SandboxInfo } from "./sandbox_info.ts";
import { disarmDeadMan } from "./dead_man.ts";
import { reapEscapesConfirmed } from "./escape_reaper.ts";
import { type LiveGroup, settleLiveGroup } from "./live_groups.ts";

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

/**
 * A spawned group's handle (what `spawnGroup` returns): its end is observed,
 * its termination serialized and confirmed, a sandbox ended by its init.
 *
 * @example
 * ```ts
 * import { spawnGroup } from "./spawn_group.ts";
 * const h = await spawnGroup({ command: "/bin/true", cwd: "/", env: {} });
 * console.log((await h.terminate()).confirmed); // true
 * ```
 */
export class GroupHandleImpl implements GroupHandle, LiveGroup {
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
      if (this.#confirmed) settleLiveGroup(this);
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
      if (report.confirmed && this.exitStatus !== null) settleLiveGroup(this);
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
