/**
 * The signal of one `tools/call`: it aborts when the client cancels the request or the
 * connection shuts down, whichever comes first, with that signal's reason — what
 * `AbortSignal.any([request, shutdown])` gives. `AbortSignal.any` costs about 15 µs per
 * call under Deno (it keeps weak references to every dependent signal); two listeners,
 * removed when the call settles, cost a tenth of it and leave nothing on the
 * connection's long-lived shutdown signal.
 *
 * @module
 */

/** A call's combined signal and how to detach it. */
export interface CallSignal {
  /** Aborts when either source aborts (at once if one already has). */
  signal: AbortSignal;
  /** Detach from both sources; the signal then stays as it is. Idempotent. */
  dispose(): void;
}

/**
 * Combine `a` and `b` (see the module documentation).
 *
 * @example
 * ```ts
 * import { callSignal } from "./call_signal.ts";
 * const request = new AbortController();
 * const shutdown = new AbortController();
 * const call = callSignal(request.signal, shutdown.signal);
 * shutdown.abort("bye");
 * call.signal.reason; // "bye"
 * call.dispose();
 * ```
 */
export function callSignal(a: AbortSignal, b: AbortSignal): CallSignal {
  const ctl = new AbortController();
  if (a.aborted) ctl.abort(a.reason);
  else if (b.aborted) ctl.abort(b.reason);
  if (ctl.signal.aborted) return { signal: ctl.signal, dispose() {} };
  const fromA = () => finish(a.reason);
  const fromB = () => finish(b.reason);
  function dispose(): void {
    a.removeEventListener("abort", fromA);
    b.removeEventListener("abort", fromB);
  }
  function finish(reason: unknown): void {
    dispose();
    ctl.abort(reason);
  }
  a.addEventListener("abort", fromA, { once: true });
  b.addEventListener("abort", fromB, { once: true });
  return { signal: ctl.signal, dispose };
}
