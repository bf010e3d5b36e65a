/**
 * Starting a harness: spawn the start command in its own process group (journaled before
 * it gets its envelope), then wait for readiness — one newline-terminated line on stdout,
 * content ignored, at most {@linkcode READY_LINE_MAX_BYTES} before the newline. stderr
 * goes to `/dev/null` from the start; stdout is drained and discarded after readiness, at
 * a bounded pace ({@linkcode HARNESS_DRAIN_PACE}) so a harness that never stops printing
 * cannot drive memory or CPU up. Nothing is buffered: only the bytes before the first
 * newline are counted. Once the group is reaped, {@linkcode releaseStartStreams} closes
 * this process's ends of the pipes, so a descendant that escaped the group while holding
 * them cannot keep this process alive.
 *
 * @module
 */

import { discardPaced, type PacedDiscardOptions } from "../process/bounded_collect.ts";
import type { ExitStatus, GroupHandle } from "../process/spawn_group.ts";
import { spawnGroup } from "../process/spawn_group.ts";
import { SpawnError } from "../process/spawn_error.ts";
import type { RunGuard } from "../process/run_guard.ts";
import type { Confine } from "../process/sandbox_init.ts";
import type { Journal } from "./journal.ts";
import type { Invocation } from "./invocation.ts";
import { READY_LINE_MAX_BYTES } from "./options.ts";

/** How waiting for readiness ended. */
export type Readiness =
  | { kind: "ready" }
  | { kind: "exited"; status: ExitStatus }
  | { kind: "overflow" }
  | { kind: "closed" }
  | { kind: "aborted" };

/** How long to wait for buffered stdout after the leader exits before deciding. */
const EXIT_SETTLE_MS = 200;

/**
 * The pace at which a harness's output is drained and discarded outside the ready line:
 * at most 1 MiB per 100 ms (about 10 MiB/s). A harness printing faster is slowed by pipe
 * backpressure, never stopped.
 */
export const HARNESS_DRAIN_PACE: Readonly<PacedDiscardOptions> = {
  bytesPerTick: 1 << 20,
  tickMs: 100,
};

/**
 * Watch a started harness until it is ready, exits, overflows the readiness bound, closes
 * stdout without a newline, or `signal` aborts. From then on stdout (and stderr, when it
 * is a pipe) is drained and discarded at {@linkcode HARNESS_DRAIN_PACE}, until the stream
 * ends or is destroyed ({@linkcode releaseStartStreams}).
 *
 * @example
 * ```ts
 * import { watchReadiness } from "./startup.ts";
 * // const r = await watchReadiness(handle, new AbortController().signal);
 * ```
 */
export function watchReadiness(
  h: GroupHandle,
  signal: AbortSignal,
  maxBytes: number = READY_LINE_MAX_BYTES,
): Promise<Readiness> {
  discardPaced(h.stderr, HARNESS_DRAIN_PACE);
  return new Promise<Readiness>((resolve) => {
    let seen = 0;
    let done = false;
    let stdoutEnded = false;
    let settleTimer: ReturnType<typeof setTimeout> | undefined;
    const finish = (r: Readiness) => {
      if (done) return;
      done = true;
      clearTimeout(settleTimer);
      signal.removeEventListener("abort", onAbort);
      h.stdout.off("data", onData);
      h.stdout.off("end", onEnd);
      h.stdout.off("close", onEnd);
      discardPaced(h.stdout, HARNESS_DRAIN_PACE); // never buffered, never blocking for good
      resolve(r);
    };
    const onAbort = () => finish({ kind: "aborted" });
    const onData = (chunk: Uint8Array) => {
      const nl = chunk.indexOf(10);
      if (nl >= 0 && seen + nl <= maxBytes) return finish({ kind: "ready" });
      seen += nl >= 0 ? nl + 1 : chunk.byteLength;
      if (seen > maxBytes) finish({ kind: "overflow" });
    };
    const onEnd = () => {
      if (stdoutEnded) return;
      stdoutEnded = true;
      const status = h.exitStatus;
      if (status !== null) return finish({ kind: "exited", status });
      // stdout usually ends just before the exit is reported.
      settleTimer = setTimeout(() => {
        const late = h.exitStatus;
        finish(late !== null ? { kind: "exited", status: late } : { kind: "closed" });
      }, EXIT_SETTLE_MS);
    };
    h.stdout.on("data", onData);
    h.stdout.once("end", onEnd);
    h.stdout.once("close", onEnd);
    h.exited.then((status) => {
      if (done) return;
      if (stdoutEnded) return finish({ kind: "exited", status });
      clearTimeout(settleTimer);
      // Give a line printed just before exiting the chance to arrive.
      settleTimer = setTimeout(() => finish({ kind: "exited", status }), EXIT_SETTLE_MS);
    });
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
  });
}

/**
 * Close this process's ends of a start group's output pipes. Call it once the group has
 * been ended: a descendant that left the group (`setsid`) while holding the harness's
 * stdout or stderr would otherwise keep them open, and with them this process, until it
 * exits. Idempotent.
 *
 * @example
 * ```ts
 * import { releaseStartStreams } from "./startup.ts";
 * // await handle.terminate({ graceMs: 2000 });
 * // releaseStartStreams(handle);
 * ```
 */
export function releaseStartStreams(h: GroupHandle): void {
  h.stdout.destroy();
  h.stderr.destroy();
}

/** A confined start: its sandbox and the paths writable in it (its output/tmp dirs). */
export interface StartSandbox {
  /** The session's confinement (lib/sandbox). */
  confine: Confine;
  /** The start command's private output and tmp dirs. */
  writable: string[];
}

/** Result of {@linkcode spawnStart}. */
export type SpawnStartResult =
  | { ok: true; handle: GroupHandle; readiness: Promise<Readiness> }
  | { ok: false; reason: string };

/**
 * Spawn a start invocation and begin watching its readiness at once. Its group is
 * recorded in `journal` (synced, synchronously) before its stdin is written. Returns a
 * value-free reason when it cannot be started or recorded. With a `guard` (the
 * session's resource limits), the command line is the guard's.
 *
 * @example
 * ```ts
 * import { spawnStart } from "./startup.ts";
 * // const r = await spawnStart(invocation, journal, abortSignal);
 * // if (r.ok) console.log((await r.readiness).kind);
 * ```
 */
export async function spawnStart(
  inv: Invocation,
  journal: Journal,
  signal: AbortSignal,
  guard?: RunGuard,
  sandbox?: StartSandbox,
  copy: { stderr?: (chunk: Uint8Array) => void } = {},
): Promise<SpawnStartResult> {
  let handle: GroupHandle;
  // Confinement wraps the start command; the session's resource limits wrap both.
  const inner: ReturnType<Confine["wrap"]> =
    sandbox?.confine.wrap(inv.command, inv.args, inv.cwd, sandbox.writable) ??
      { command: inv.command, args: [...inv.args] };
  try {
    const argv = guard?.wrap(inner.command, inner.args) ?? inner;
    handle = await spawnGroup({
      command: argv.command,
      args: argv.args,
      sandboxed: sandbox !== undefined,
      binds: inner.binds,
      cwd: inv.cwd,
      env: inv.env,
      stdin: inv.stdin,
      // Discarded unless copied (`--stderr`): /dev/null costs nothing and holds no pipe.
      stderr: copy.stderr ? "pipe" : "ignore",
      onSpawn: (record) => journal.admit("start", record),
      // At the spawn, before the wait for its session and journal record: a start command
      // that fails at once must not have its error output discarded with its exit.
      onStreams: (_stdout, stderr) => copy.stderr && stderr.on("data", copy.stderr),
    });
  } catch (e) {
    if (e instanceof SpawnError) {
      return { ok: false, reason: `its start command could not be started (${e.reason})` };
    }
    return { ok: false, reason: "its start command could not be recorded in the session journal" };
  } finally {
    inner.binds?.close();
  }
  // Listen before yielding to the event loop, or an early exit could discard output.
  return { ok: true, handle, readiness: watchReadiness(handle, signal) };
}

/** What a harness's reserved exit statuses usually mean (its stderr is never shown). */
const STATUS_HINTS: Record<number, string> = {
  126: "usually a program that is not executable; `tools call --stderr` shows its error output",
  127:
    "usually a command or `#!` interpreter not found on PATH; `tools call --stderr` shows its error output",
};

/**
 * The value-free startup error for a readiness outcome other than `ready`/`aborted`.
 *
 * @example
 * ```ts
 * import { readinessFailure } from "./startup.ts";
 * readinessFailure({ kind: "exited", status: { exitCode: 3, signal: null } });
 * // "its start command exited before it was ready (exit status 3)"
 * ```
 */
export function readinessFailure(r: Readiness, maxBytes: number = READY_LINE_MAX_BYTES): string {
  switch (r.kind) {
    case "exited": {
      const how = r.status.signal !== null
        ? `killed by signal ${r.status.signal}`
        : `exit status ${r.status.exitCode}`;
      const hint = r.status.exitCode === null ? undefined : STATUS_HINTS[r.status.exitCode];
      return `its start command exited before it was ready (${how}${hint ? `: ${hint}` : ""})`;
    }
    case "overflow":
      return `its start command printed more than ${maxBytes} bytes without a newline before it was ready`;
    case "closed":
      return "its start command closed its standard output before it was ready";
    default:
      return "its start command did not become ready";
  }
}
