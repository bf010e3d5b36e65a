/**
 * Running plugin code under a deadline: the hook gets an AbortSignal that fires at the
 * deadline (or when the call is cancelled); a hook that throws, rejects or does not settle
 * in time is reported as a failure — the caller then fails closed.
 *
 * @module
 */

import { describeError } from "./plugin_log.ts";

/** Outcome of {@link withDeadline}. */
export type DeadlineOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; why: "threw" | "timeout" | "cancelled"; detail: string };

/**
 * Run `fn(signal)` with a deadline of `timeoutMs`.
 *
 * @example
 * ```ts
 * import { withDeadline } from "./deadline.ts";
 * const r = await withDeadline(() => new Promise(() => {}), 10);
 * console.log(r.ok); // false (timeout)
 * ```
 */
export async function withDeadline<T>(
  fn: (signal: AbortSignal) => T | Promise<T>,
  timeoutMs: number,
  parent?: AbortSignal,
): Promise<DeadlineOutcome<T>> {
  const ctl = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let settle!: (o: DeadlineOutcome<T>) => void;
  const stopped = new Promise<DeadlineOutcome<T>>((resolve) => (settle = resolve));
  const onAbort = () => {
    ctl.abort();
    settle({ ok: false, why: "cancelled", detail: "the call was cancelled" });
  };
  if (parent?.aborted) return { ok: false, why: "cancelled", detail: "the call was cancelled" };
  parent?.addEventListener("abort", onAbort, { once: true });
  timer = setTimeout(() => {
    ctl.abort();
    settle({ ok: false, why: "timeout", detail: `did not finish within ${timeoutMs} ms` });
  }, timeoutMs);
  const run = (async (): Promise<DeadlineOutcome<T>> => {
    try {
      return { ok: true, value: await fn(ctl.signal) };
    } catch (e) {
      return { ok: false, why: "threw", detail: describeError(e) };
    }
  })();
  try {
    return await Promise.race([run, stopped]);
  } finally {
    clearTimeout(timer);
    timer = undefined;
    parent?.removeEventListener("abort", onAbort);
  }
}
