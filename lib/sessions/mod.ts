/**
 * Tool sessions: a supervisor that starts harnesses lazily, runs bound calls inside
 * them, stops and cleans them up on every ending, and sweeps what a crashed toolhost
 * left behind.
 *
 * @example
 * ```ts
 * import { sweepSessions } from "./mod.ts";
 * const report = await sweepSessions("/tmp/toolhost-state");
 * console.log(report.swept, report.failed);
 * ```
 *
 * @module
 */

export {
  READY_LINE_MAX_BYTES,
  sessionEndedMessage,
  sessionEnv,
  STOP_TIMEOUT_MS,
} from "./options.ts";
export type { SupervisorOptions } from "./options.ts";
export { SessionSupervisor } from "./supervisor.ts";
export { ToolSession } from "./session.ts";
export type { SessionPhase, StopOutcome } from "./session.ts";
export { callBoundTool } from "./bound_call.ts";
export type { BoundCallRequest } from "./bound_call.ts";
export { sweepSessions } from "./sweep.ts";
export type { SweepOptions, SweepReport } from "./sweep.ts";
export { sessionsRoot } from "./session_dir.ts";
export { readJournal } from "./journal.ts";
export type { JournalEntry, JournalRole } from "./journal.ts";
