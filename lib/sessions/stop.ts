/**
 * Running a session's stop command: the usual envelope (`args: {}`), the session
 * directory, its own cancellation (callers cannot cancel it), a bound (30 s by default),
 * its group journaled before admission and retired once confirmed gone. Its output is
 * discarded; how it went is reported, and cleanup proceeds either way.
 *
 * @module
 */

import { createCallDirs } from "../process/call_dirs.ts";
import { runBounded } from "../process/run.ts";
import { type Confinement, openConfine } from "../sandbox/confine.ts";
import type { SessionCommand } from "../workspace/types.ts";
import { prepareInvocation, type SessionScope } from "./invocation.ts";
import type { Journal } from "./journal.ts";
import type { SessionRoot } from "./session_dir.ts";

/** How the stop command went. */
export type StopOutcome = "not run" | "stopped" | "failed" | "timed out";

/** What {@linkcode runStop} needs. */
export interface StopRequest {
  /** The session's registry-wide facts. */
  scope: SessionScope;
  /** The declared stop command. */
  command: SessionCommand;
  /** The session root (its private dirs go below it). */
  root: SessionRoot;
  /** The session journal. */
  journal: Journal;
  /** The stop bound, ms (`STOP_TIMEOUT_MS` by default). */
  timeoutMs: number;
  /** SIGTERM→SIGKILL grace when the bound ends it, ms. */
  graceMs: number;
  /** The session's confinement (lib/sandbox), when it is confined. Default none. */
  confinement?: Confinement;
  /** Receives copies of the stop command's stderr. Default: discarded. */
  onStderr?: (chunk: Uint8Array) => void;
}

/**
 * Run the stop command once, bounded; never throws.
 *
 * @example
 * ```ts
 * import { runStop } from "./stop.ts";
 * // const outcome = await runStop({ scope, command: decl.stop, root, journal, timeoutMs: 30000, graceMs: 2000 });
 * ```
 */
export async function runStop(req: StopRequest): Promise<StopOutcome> {
  let dirs;
  try {
    dirs = await createCallDirs(req.root.root);
  } catch {
    return "failed";
  }
  try {
    const prep = prepareInvocation(req.scope, req.command, dirs, req.root.dir);
    if (!prep.ok) return "failed";
    const sandbox = req.confinement === undefined ? undefined : openConfine(req.confinement, {
      ws: req.scope.ws,
      scope: req.scope.scope,
      owner: req.scope.artifact.id,
      executionPaths: req.command.executionPaths,
      program: prep.invocation.command,
      path: req.scope.env.PATH,
    });
    if (sandbox !== undefined && !sandbox.ok) return "failed"; // fail closed: never unconfined
    const own = new AbortController(); // stop's own cancellation token
    const run = await runBounded({
      ...prep.invocation,
      timeoutMs: req.timeoutMs,
      signal: own.signal,
      graceMs: req.graceMs,
      retainStdoutBytes: 0,
      callDirs: dirs,
      onSpawn: (r) => req.journal.admit("stop", r),
      confine: sandbox?.confine,
      sandboxWritable: [dirs.outputDir, dirs.tmpDir],
      onStderr: req.onStderr,
    }).catch(() => undefined);
    if (run?.record !== undefined && run.cleanupConfirmed) req.journal.retire(run.record);
    if (run === undefined || run.spawnError !== undefined) return "failed";
    if (run.timedOut) return "timed out";
    return run.exitCode === 0 ? "stopped" : "failed";
  } finally {
    await dirs.remove().catch(() => {});
  }
}
