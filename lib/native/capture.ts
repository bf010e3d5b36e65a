/**
 * Running a process to completion with both streams captured (bounded), for `shell_exec`
 * and the git tools: its own process group (lib/process `spawnGroup`), a deadline and
 * cancellation that end the whole group with SIGTERM then SIGKILL, 16 MiB stream caps
 * (the group is ended early beyond them), and at most `retainBytes` kept per stream.
 *
 * @module
 */

import { type BoundedCollector, collectBounded } from "../process/bounded_collect.ts";
import { type GroupHandle, spawnGroup } from "../process/spawn_group.ts";
import type { Confine } from "../process/sandbox_init.ts";
import type { CallDirs } from "../process/call_dirs.ts";
import { SpawnError, type SpawnFailure } from "../process/spawn_error.ts";
import { LIMITS } from "../results/types.ts";
import type { Readable } from "node:stream";

/** Options of {@link runCaptured}. */
export interface CaptureOptions {
  /** Absolute executable path. */
  command: string;
  /** Arguments. */
  args: string[];
  /** Working directory (physical). */
  cwd: string;
  /** Complete environment. */
  env: Record<string, string>;
  /** Deadline in ms. */
  timeoutMs: number;
  /** Bytes kept per stream. */
  retainBytes: number;
  /** Cancellation. */
  signal?: AbortSignal;
  /** SIGTERM→SIGKILL grace in ms. Default 2000. */
  graceMs?: number;
  /** The call's directories: the group is journaled there before it runs (see sweep). */
  callDirs?: Pick<CallDirs, "admit">;
  /** Confinement (lib/sandbox) of the declaring tool. Default none. */
  confine?: Confine;
  /** Paths writable inside the sandbox (the call's output and tmp dirs). */
  sandboxWritable?: readonly string[];
}

/** How it ended. */
export interface CaptureOutcome {
  /** Exit status, or null (signal, not started). */
  exitCode: number | null;
  /** Signal that ended the leader, or null. */
  signal: string | null;
  /** The deadline ended it. */
  timedOut: boolean;
  /** The AbortSignal ended it. */
  cancelled: boolean;
  /** A stream passed 16 MiB and the group was ended. */
  overflow: boolean;
  /** Set when it could not be started. */
  spawnFailure?: SpawnFailure;
  /** Kept stdout bytes. */
  stdout: Uint8Array;
  /** Total stdout bytes. */
  stdoutBytes: number;
  /** Kept stderr bytes. */
  stderr: Uint8Array;
  /** Total stderr bytes. */
  stderrBytes: number;
  /** Every process of the group was confirmed gone. */
  cleanupConfirmed: boolean;
  /** Wall time in ms. */
  durationMs: number;
}

function empty(started: number): CaptureOutcome {
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: false,
    overflow: false,
    stdout: new Uint8Array(0),
    stdoutBytes: 0,
    stderr: new Uint8Array(0),
    stderrBytes: 0,
    cleanupConfirmed: true,
    durationMs: Date.now() - started,
  };
}

async function settle(h: GroupHandle, cs: BoundedCollector[], ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all(cs.map((c) => c.done)),
    new Promise((r) => (timer = setTimeout(r, ms))),
  ]);
  clearTimeout(timer);
  h.stdout.destroy();
  h.stderr.destroy();
}

/**
 * Run a command with both streams captured. Never rejects for the command's behaviour.
 *
 * @example
 * ```ts
 * import { runCaptured } from "./capture.ts";
 * const r = await runCaptured({ command: "/bin/sh", args: ["-c", "echo hi; echo oops >&2"], cwd: "/", env: {}, timeoutMs: 5000, retainBytes: 1024 });
 * console.log(new TextDecoder().decode(r.stderr)); // "oops\n"
 * ```
 */
export async function runCaptured(o: CaptureOptions): Promise<CaptureOutcome> {
  const started = Date.now();
  if (o.signal?.aborted) return { ...empty(started), cancelled: true };
  const graceMs = o.graceMs ?? 2000;
  let h: GroupHandle | undefined;
  let why: "timeout" | "cancel" | "overflow" | null = null;
  const stop = (w: "timeout" | "cancel" | "overflow") => {
    if (why !== null) return;
    why = w;
    h?.terminate({ graceMs }).catch(() => {});
  };
  const cap = {
    maxBytes: LIMITS.maxStreamBytes,
    retainBytes: o.retainBytes,
    onOverflow: () => stop("overflow"),
  };
  let streams: [BoundedCollector, BoundedCollector] | undefined;
  try {
    // The readers are attached at the spawn itself, before spawnGroup awaits anything: a
    // child that exits meanwhile with nobody reading has its output discarded by
    // child_process (its stdout would read as empty, and git's as a clean listing).
    h = await spawnCaptured(o, (stdout, stderr) => {
      streams = [collectBounded(stdout, cap), collectBounded(stderr, cap)];
    });
  } catch (e) {
    if (e instanceof SpawnError) return { ...empty(started), spawnFailure: e.reason };
    throw e;
  }
  const [out, err] = streams!;
  if (why !== null) h.terminate({ graceMs }).catch(() => {}); // it overflowed at once
  const timer = setTimeout(() => stop("timeout"), o.timeoutMs);
  const onAbort = () => stop("cancel");
  o.signal?.addEventListener("abort", onAbort, { once: true });
  const status = await h.exited;
  clearTimeout(timer);
  o.signal?.removeEventListener("abort", onAbort);
  const report = await h.terminate({ graceMs });
  await settle(h, [out, err], report.confirmed ? 1000 : 0);
  return {
    exitCode: status.exitCode,
    signal: status.signal,
    timedOut: why === "timeout",
    cancelled: why === "cancel",
    overflow: why === "overflow",
    stdout: out.bytes(),
    stdoutBytes: out.total,
    stderr: err.bytes(),
    stderrBytes: err.total,
    cleanupConfirmed: report.confirmed,
    durationMs: Date.now() - started,
  };
}

/** Spawn `o`'s command (confined when asked) in its own group, `onStreams` at the spawn. */
async function spawnCaptured(
  o: CaptureOptions,
  onStreams: (stdout: Readable, stderr: Readable) => void,
): Promise<GroupHandle> {
  const argv: ReturnType<Confine["wrap"]> =
    o.confine?.wrap(o.command, o.args, o.cwd, o.sandboxWritable ?? []) ??
      { command: o.command, args: [...o.args] };
  try {
    return await spawnGroup({
      ...argv,
      sandboxed: o.confine !== undefined,
      cwd: o.cwd,
      env: o.env,
      onSpawn: o.callDirs ? (record) => o.callDirs!.admit(record) : undefined,
      onStreams,
    });
  } finally {
    argv.binds?.close();
  }
}
