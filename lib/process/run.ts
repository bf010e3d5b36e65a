/**
 * `runBounded`: run one command to completion with a deadline, cancellation, bounded
 * streams and whole-group cleanup. Nothing the command started in its process group
 * outlives the call.
 *
 * @module
 */

import { InvocationError } from "../errors/errors.ts";
import { LIMITS } from "../results/types.ts";
import type { Readable } from "node:stream";
import { type BoundedCollector, collectBounded } from "./bounded_collect.ts";
import type { CallDirs } from "./call_dirs.ts";
import { releaseHeldDirs } from "./held_dirs.ts";
import type { ProcessRecord } from "./proc_identity.ts";
import type { GuardLimit, RunGuard } from "./run_guard.ts";
import { type GroupHandle, spawnGroup } from "./spawn_group.ts";
import { SpawnError, type SpawnFailure } from "./spawn_error.ts";
import type { Confine } from "./sandbox_init.ts";
import { adoptSpare, type Spare } from "./warm_adopt.ts";

/** Options of {@linkcode runBounded}. */
export interface RunBoundedOptions {
  /** Absolute path of the executable, already resolved by the caller. */
  command: string;
  /** Arguments. Default none. */
  args?: string[];
  /** Working directory. */
  cwd: string;
  /** Complete environment of the child (see `toolEnvironment`). */
  env: Record<string, string>;
  /** Written to stdin, then stdin is closed. Default: empty. */
  stdin?: string | Uint8Array;
  /** Deadline in ms, an integer in 1..2147483647. Default 120000. */
  timeoutMs?: number;
  /** Cancels the call: the whole group is terminated. */
  signal?: AbortSignal;
  /** stdout above this is an overflow: the group is killed early. Default 16 MiB. */
  maxStdoutBytes?: number;
  /** stdout bytes kept in memory. Default `maxStdoutBytes`. */
  retainStdoutBytes?: number;
  /** stderr above this is an overflow: the group is killed early. Default 16 MiB. */
  maxStderrBytes?: number;
  /** SIGTERM→SIGKILL grace when the group must be ended. Default 2000 ms. */
  graceMs?: number;
  /** Called with the group's identity before stdin is written (see `spawnGroup`). */
  onSpawn?: (record: ProcessRecord) => void | Promise<void>;
  /**
   * The call's private directories: the group is journaled there (`admit`) before
   * `onSpawn` runs and before stdin is written, so `toolhost sweep` can end it if this
   * process dies mid-call. A failed write refuses the call (`runBounded` rejects).
   */
  callDirs?: Pick<CallDirs, "admit">;
  /** Resource limits (lib/limits): wraps the command, watches the group. Default none. */
  guard?: RunGuard;
  /**
   * Confinement (lib/sandbox): the command runs inside it, `sandboxWritable` writable.
   * The guard wraps the sandbox (its limits hold for everything inside). Default none.
   */
  confine?: Confine;
  /** Paths writable inside the sandbox for this run (its output and tmp dirs). */
  sandboxWritable?: readonly string[];
  /**
   * Run in this pre-spawned sandbox instead of spawning one (a warm sandbox, see
   * lib/sandbox/warm_pool.ts): it is handed `spare.payload` and `stdin`. It is already
   * confined and journaled, so `confine`, `sandboxWritable` and `callDirs` are not used;
   * `guard` must be absent (limited runs take the cold path). Default none.
   */
  spare?: Spare;
  /**
   * Also hand stdout to this consumer (e.g. a spill file); it may `pause()`/`resume()`
   * the stream for backpressure. Default none.
   */
  onStdout?: (stdout: Readable) => void;
  /**
   * Also receives every stderr chunk (an author's terminal with `--stderr`); stderr is
   * otherwise only counted, and never goes into a result. Default none.
   */
  onStderr?: (chunk: Uint8Array) => void;
}

/** Everything a protocol needs to normalize a finished call. stderr is only counted. */
export interface RunOutcome {
  /** Exit status, or null when killed by a signal (or never started). */
  exitCode: number | null;
  /** Signal that ended the leader, such as `SIGKILL`, or null. */
  signal: string | null;
  /** The retained stdout (at most `retainStdoutBytes`). */
  stdout: Uint8Array;
  /** Total stdout bytes produced. */
  stdoutBytes: number;
  /** stdout exceeded `maxStdoutBytes`. */
  stdoutOverflow: boolean;
  /** Total stderr bytes produced (content is discarded, never returned). */
  stderrBytes: number;
  /** stderr exceeded `maxStderrBytes`. */
  stderrOverflow: boolean;
  /** The deadline ended the call. */
  timedOut: boolean;
  /** The AbortSignal ended the call. */
  cancelled: boolean;
  /** Set when the command could not be started. */
  spawnError?: SpawnFailure;
  /** False when some process of the group could not be confirmed gone. */
  cleanupConfirmed: boolean;
  /** The group's identity, when it was spawned. */
  record?: ProcessRecord;
  /** The effective deadline (for messages). */
  timeoutMs: number;
  /** The effective stdout cap (for messages). */
  maxStdoutBytes: number;
  /** The effective stderr cap (for messages). */
  maxStderrBytes: number;
  /** Set when a declared resource limit ended the run (see `RunBoundedOptions.guard`). */
  limitExceeded?: GuardLimit;
}

/** Why a call was ended early; the first reason wins. */
type StopReason = "timeout" | "cancel" | "stdout" | "stderr" | "limit";

/**
 * Validate a deadline: an integer in 1..2147483647 ms.
 *
 * @example
 * ```ts
 * import { checkTimeoutMs } from "./run.ts";
 * checkTimeoutMs(undefined); // 120000
 * ```
 */
export function checkTimeoutMs(timeoutMs: number | undefined): number {
  const ms = timeoutMs ?? LIMITS.defaultTimeoutMs;
  if (!Number.isInteger(ms) || ms < 1 || ms > LIMITS.maxTimeoutMs) {
    throw new InvocationError("timeout_ms must be an integer from 1 to 2147483647.");
  }
  return ms;
}

function baseOutcome(timeoutMs: number, opts: RunBoundedOptions): RunOutcome {
  return {
    exitCode: null,
    signal: null,
    stdout: new Uint8Array(0),
    stdoutBytes: 0,
    stdoutOverflow: false,
    stderrBytes: 0,
    stderrOverflow: false,
    timedOut: false,
    cancelled: false,
    cleanupConfirmed: true,
    timeoutMs,
    maxStdoutBytes: opts.maxStdoutBytes ?? LIMITS.maxStreamBytes,
    maxStderrBytes: opts.maxStderrBytes ?? LIMITS.maxStreamBytes,
  };
}

/** Wait for both streams to end, at most `ms`; then destroy them. */
async function settleStreams(h: GroupHandle, cs: BoundedCollector[], ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([Promise.all(cs.map((c) => c.done)), bound]);
  clearTimeout(timer);
  h.stdout.destroy();
  h.stderr.destroy();
}

/**
 * Run `command` bounded: deadline, cancellation, 16 MiB stream caps with flat memory,
 * and — on every path — SIGTERM/SIGKILL of the whole process group with `/proc`
 * confirmation before resolving. stderr is drained and counted, never kept. Never
 * rejects for tool misbehaviour; rejects only for a bad `timeoutMs`, a throwing
 * `onSpawn` or a group that cannot be journaled in `callDirs`.
 *
 * @example
 * ```ts
 * import { runBounded } from "./run.ts";
 * const r = await runBounded({ command: "/bin/echo", args: ["hi"], cwd: "/", env: {} });
 * console.log(r.exitCode, new TextDecoder().decode(r.stdout)); // 0 "hi\n"
 * ```
 */
export async function runBounded(opts: RunBoundedOptions): Promise<RunOutcome> {
  const out = baseOutcome(checkTimeoutMs(opts.timeoutMs), opts);
  if (opts.signal?.aborted) {
    await opts.spare?.handle.terminate({ graceMs: 0 });
    return { ...out, cancelled: true };
  }
  let handle: GroupHandle;
  let streams: Streams | undefined;
  const early: { stop?: (why: StopReason) => void; pending?: StopReason } = {};
  const overflow = (why: StopReason) => early.stop ? early.stop(why) : (early.pending ??= why);
  const onStreams = (
    stdout: Readable,
    stderr: Readable,
  ) => (streams = collectStreams(stdout, stderr, opts, out, overflow));
  if (opts.spare !== undefined) {
    if (opts.guard !== undefined) throw new InvocationError("A warm sandbox cannot be limited.");
    handle = await adoptSpare(opts.spare, opts, onStreams);
    out.record = handle.record;
    return await supervise(handle, opts, out, streams!, early);
  }
  const inner: ReturnType<Confine["wrap"]> = opts.confine?.wrap(
    opts.command,
    opts.args ?? [],
    opts.cwd,
    opts.sandboxWritable ?? [],
  ) ?? { command: opts.command, args: opts.args ?? [] };
  try {
    const argv = opts.guard?.wrap(inner.command, inner.args) ?? inner;
    handle = await spawnGroup({
      ...opts,
      command: argv.command,
      args: argv.args,
      sandboxed: opts.confine !== undefined,
      binds: inner.binds,
      onSpawn: journaled(opts),
      onStreams,
    });
  } catch (e) {
    await opts.guard?.settle({ exitCode: null, signal: null });
    if (e instanceof SpawnError) return { ...out, spawnError: e.reason };
    throw e;
  } finally {
    inner.binds?.close();
  }
  out.record = handle.record;
  opts.guard?.watch(handle.record, () => overflow("limit"), handle.tag);
  return await supervise(handle, opts, out, streams!, early);
}

/** `onSpawn` preceded by journaling the group in the call's directory, if any. */
function journaled(opts: RunBoundedOptions): RunBoundedOptions["onSpawn"] {
  const dirs = opts.callDirs;
  const next = opts.onSpawn;
  if (dirs === undefined) return next;
  return (record) => {
    dirs.admit(record);
    return next?.(record);
  };
}

interface Streams {
  stdout: BoundedCollector;
  stderr: BoundedCollector;
}

function collectStreams(
  stdout: Readable,
  stderr: Readable,
  opts: RunBoundedOptions,
  out: RunOutcome,
  overflow: (why: StopReason) => void,
): Streams {
  opts.onStdout?.(stdout);
  if (opts.onStderr) stderr.on("data", opts.onStderr);
  return {
    stdout: collectBounded(stdout, {
      maxBytes: out.maxStdoutBytes,
      retainBytes: opts.retainStdoutBytes,
      onOverflow: () => overflow("stdout"),
    }),
    stderr: collectBounded(stderr, {
      maxBytes: out.maxStderrBytes,
      retainBytes: 0,
      onOverflow: () => overflow("stderr"),
    }),
  };
}

async function supervise(
  h: GroupHandle,
  opts: RunBoundedOptions,
  out: RunOutcome,
  { stdout, stderr }: Streams,
  early: { stop?: (why: StopReason) => void; pending?: StopReason },
): Promise<RunOutcome> {
  const graceMs = opts.graceMs ?? 2000;
  let reason: StopReason | null = null;
  let failedStop!: () => void;
  const stopFailed = new Promise<null>((resolve) => (failedStop = () => resolve(null)));
  const stop = (why: StopReason) => {
    if (reason !== null) return;
    reason = why;
    const grace = why === "limit" ? 0 : graceMs;
    h.terminate({ graceMs: grace }).then((r) => r.confirmed || failedStop(), failedStop);
  };
  early.stop = stop;
  if (early.pending) stop(early.pending);
  const timer = setTimeout(() => stop("timeout"), out.timeoutMs);
  const onAbort = () => stop("cancel");
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  releaseHeldDirs(); // earlier calls' removed directories, while this one's tool runs
  const status = await Promise.race([h.exited, stopFailed]);
  clearTimeout(timer);
  opts.signal?.removeEventListener("abort", onAbort);
  const report = await h.terminate({ graceMs });
  await settleStreams(h, [stdout, stderr], report.confirmed ? 1000 : 0);
  const limit = await opts.guard?.settle(status ?? { exitCode: null, signal: null });
  return {
    ...out,
    ...(limit ? { limitExceeded: limit } : {}),
    exitCode: status?.exitCode ?? null,
    signal: status?.signal ?? null,
    stdout: stdout.bytes(),
    stdoutBytes: stdout.total,
    stdoutOverflow: stdout.overflow,
    stderrBytes: stderr.total,
    stderrOverflow: stderr.overflow,
    timedOut: reason === "timeout",
    cancelled: reason === "cancel",
    cleanupConfirmed: report.confirmed && status !== null,
  };
}
