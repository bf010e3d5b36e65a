/**
 * Starting a harness: spawn the start command in its own process group (journaled before
 * it gets its envelope), then wait for readiness — one newline-terminated line on stdout,
 * content ignored, at most {@linkcode READY_LINE_MAX_BYTES} before the newline. stderr is
 * discarded from the start; stdout is discarded after readiness. Nothing is buffered:
 * only the bytes before the first newline are counted.
 *
 * @module
 */

import type { ExitStatus, GroupHandle } from "../process/spawn_group.ts";
import { spawnGroup } from "../process/spawn_group.ts";
import { SpawnError } from "../process/spawn_error.ts";
import type { RunGuard } from "../process/run_guard.ts";
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
 * Watch a started harness until it is ready, exits, overflows the readiness bound, closes
 * stdout without a newline, or `signal` aborts. After readiness stdout keeps flowing and
 * is discarded.
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
  h.stderr.resume();
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
      resolve(r);
    };
    const onAbort = () => finish({ kind: "aborted" });
    h.stdout.on("data", (chunk: Uint8Array) => {
      if (done) return;
      const nl = chunk.indexOf(10);
      if (nl >= 0 && seen + nl <= maxBytes) return finish({ kind: "ready" });
      seen += nl >= 0 ? nl + 1 : chunk.byteLength;
      if (seen > maxBytes) finish({ kind: "overflow" });
    });
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
    h.stdout.once("end", onEnd);
    h.stdout.once("close", onEnd);
    h.exited.then((status) => {
      if (stdoutEnded) return finish({ kind: "exited", status });
      clearTimeout(settleTimer);
      // Give a line printed just before exiting the chance to arrive.
      settleTimer = setTimeout(() => finish({ kind: "exited", status }), EXIT_SETTLE_MS);
    });
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
  });
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
): Promise<SpawnStartResult> {
  let handle: GroupHandle;
  // A session's resource limits wrap its start command.
  const argv = guard?.wrap(inv.command, inv.args) ?? { command: inv.command, args: inv.args };
  try {
    handle = await spawnGroup({
      command: argv.command,
      args: argv.args,
      cwd: inv.cwd,
      env: inv.env,
      stdin: inv.stdin,
      onSpawn: (record) => journal.admit("start", record),
    });
  } catch (e) {
    if (e instanceof SpawnError) {
      return { ok: false, reason: `its start command could not be started (${e.reason})` };
    }
    return { ok: false, reason: "its start command could not be recorded in the session journal" };
  }
  // Listen before yielding to the event loop, or an early exit could discard output.
  return { ok: true, handle, readiness: watchReadiness(handle, signal) };
}

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
      return `its start command exited before it was ready (${how})`;
    }
    case "overflow":
      return `its start command printed more than ${maxBytes} bytes without a newline before it was ready`;
    case "closed":
      return "its start command closed its standard output before it was ready";
    default:
      return "its start command did not become ready";
  }
}
