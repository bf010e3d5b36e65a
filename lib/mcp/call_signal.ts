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

/**
 * {@link callSignal} against one long-lived `b` (the connection's shutdown signal) for
 * many calls: `b` gets one listener for all of them instead of one per call, so a call
 * adds and removes a listener on its request signal only. The same signals, reasons and
 * order (calls abort in the order they were made).
 *
 * @example
 * ```ts
 * import { callSignals } from "./call_signal.ts";
 * const shutdown = new AbortController();
 * const signalFor = callSignals(shutdown.signal);
 * const call = signalFor(new AbortController().signal);
 * shutdown.abort("bye");
 * call.signal.reason; // "bye"
 * call.dispose();
 * ```
 */
export function callSignals(b: AbortSignal): (a: AbortSignal) => CallSignal {
  const live = new Set<() => void>();
  b.addEventListener("abort", () => {
    for (const fromB of [...live]) fromB();
  }, { once: true });
  return (a) => {
    if (a.aborted || b.aborted) return callSignal(a, b);
    const ctl = new AbortController();
    const fromA = () => finish(a.reason);
    const fromB = () => finish(b.reason);
    function dispose(): void {
      a.removeEventListener("abort", fromA);
      live.delete(fromB);
    }
    function finish(reason: unknown): void {
      dispose();
      ctl.abort(reason);
    }
    // No `{ once: true }`: `dispose` removes the listener, and Deno converts an options
    // object on every call.
    a.addEventListener("abort", fromA);
    live.add(fromB);
    return { signal: ctl.signal, dispose };
  };
}
