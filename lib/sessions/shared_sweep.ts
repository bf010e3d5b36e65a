/**
 * The sweep a tool session runs before it starts, shared: when many sessions of one
 * process start at once on one state directory (an HTTP server's clients arriving
 * together), each would list and classify every folder of every other live session —
 * work growing with the square of the sessions. Instead, a start waits for a sweep that
 * began *after* it asked (so it sees every folder that was stale when it asked, exactly
 * as a sweep of its own would), and all starts asking while one sweep runs share the
 * single next one.
 *
 * @module
 */

import { sweepSessions } from "./sweep.ts";
import type { SweepOptions, SweepReport } from "./sweep_options.ts";

/** The sweep running for a key, and the one queued to start after it. */
interface Flight {
  running: Promise<SweepReport>;
  next?: Promise<SweepReport>;
}

const flights = new Map<string, Flight>();

/** Options with an injected terminator or scan budget are never shared. */
function keyOf(stateDir: string, opts: SweepOptions): string | undefined {
  if (opts.terminate !== undefined || opts.scan !== undefined) return undefined;
  const { graceMs, ownerlessAgeMs, verifyMs, maxEntries, maxMs } = opts;
  return JSON.stringify([stateDir, graceMs, ownerlessAgeMs, verifyMs, maxEntries, maxMs]);
}

/**
 * {@link sweepSessions} of `stateDir`, begun no earlier than this call, shared with the
 * other callers in this process asking for the same state dir and options meanwhile.
 * Never rejects (as `sweepSessions`).
 *
 * @example
 * ```ts
 * import { sharedSweep } from "./shared_sweep.ts";
 * const report = await sharedSweep("/tmp/toolhost-state");
 * if (report.failed > 0) console.error(report.problems.join("\n"));
 * ```
 */
export function sharedSweep(stateDir: string, opts: SweepOptions = {}): Promise<SweepReport> {
  const key = keyOf(stateDir, opts);
  if (key === undefined) return sweepSessions(stateDir, opts);
  const flight = flights.get(key);
  if (flight === undefined) return start(key, stateDir, opts);
  // One is running, begun before this call: wait for it, then share the next one.
  flight.next ??= flight.running.then(() => start(key, stateDir, opts));
  return flight.next;
}

function start(key: string, stateDir: string, opts: SweepOptions): Promise<SweepReport> {
  const running = sweepSessions(stateDir, opts);
  flights.set(key, { running });
  return running.finally(() => {
    if (flights.get(key)?.running === running) {
      const queued = flights.get(key)?.next;
      if (queued === undefined) flights.delete(key);
    }
  });
}
