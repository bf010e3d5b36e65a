/**
 * Operational events of calls — a resource limit breached, a call refused because
 * something differs from `toolhost.lock`, an extension server restarted after it died —
 * reported where they happen and heard by whoever ran the call (or listing) that caused
 * them, e.g. `serve --http`'s `/metrics`. The listener is carried by the async context
 * (`AsyncLocalStorage`); what reports later from another context (a session's harness
 * reaped after the call that started it) captures the listener when it starts
 * ({@link captureCallEvents}). With no listener, reporting does nothing.
 * Events carry only bounded kinds and declared names — never argument values or paths.
 *
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import type { GuardLimit } from "../process/run_guard.ts";

/** What differed from `toolhost.lock`: a tool, a program (of a tool or hook), an extension. */
export type LockMismatchKind = "tool" | "program" | "extension";

/** One operational event. */
export type CallEvent =
  | { kind: "limit_breach"; limit: GuardLimit }
  | { kind: "lock_mismatch"; what: LockMismatchKind }
  | { kind: "extension_restart"; extension: string };

/** Hears events. */
export type CallEventListener = (event: CallEvent) => void;

const current = new AsyncLocalStorage<CallEventListener>();

/**
 * Run `fn` with `listener` hearing every event reported in its async context (and in
 * what it starts: sessions, extension servers).
 *
 * @example
 * ```ts
 * import { reportCallEvent, withCallEvents } from "./call_events.ts";
 * const seen: string[] = [];
 * withCallEvents((e) => seen.push(e.kind), () => reportCallEvent({ kind: "lock_mismatch", what: "tool" }));
 * console.log(seen); // ["lock_mismatch"]
 * ```
 */
export function withCallEvents<T>(listener: CallEventListener, fn: () => T): T {
  return current.run(listener, fn);
}

/**
 * Report an event to the listener of the current async context, if any. A listener that
 * throws is ignored (an observer never changes a call's outcome).
 *
 * @example
 * ```ts
 * import { reportCallEvent } from "./call_events.ts";
 * reportCallEvent({ kind: "limit_breach", limit: "memory" }); // no listener: nothing happens
 * ```
 */
export function reportCallEvent(event: CallEvent): void {
  try {
    current.getStore()?.(event);
  } catch {
    // ignored: see above
  }
}

/**
 * The listener of the current async context, kept for later: `report(event)` reaches it
 * from any context (e.g. when a session or extension started by a call ends later).
 *
 * @example
 * ```ts
 * import { captureCallEvents, withCallEvents } from "./call_events.ts";
 * const seen: string[] = [];
 * const report = withCallEvents((e) => seen.push(e.kind), () => captureCallEvents());
 * report({ kind: "limit_breach", limit: "cpu" }); // outside the context: still heard
 * console.log(seen); // ["limit_breach"]
 * ```
 */
export function captureCallEvents(): (event: CallEvent) => void {
  const listener = current.getStore();
  if (listener === undefined) return () => {};
  return (event) => current.run(listener, () => reportCallEvent(event));
}
