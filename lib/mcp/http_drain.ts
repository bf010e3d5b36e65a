/**
 * Graceful drain of `serve --http` (SIGTERM behind a load balancer): from the moment it
 * starts, `/readyz` answers 503 and a new `initialize` gets 503 with `Retry-After`, so the
 * balancer sends new sessions elsewhere; requests already on their way (and further
 * requests of existing sessions) are served until no request is open any more, or the
 * drain timeout passed. Then every session's registry is closed with confirmed cleanup.
 * A client whose session is gone afterwards gets 404 (session not found) from whichever
 * replica it reaches, and initializes again.
 *
 * @module
 */

import { InvocationError } from "../errors/errors.ts";

/** Default drain timeout, ms (30 s). */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
/** Largest accepted drain timeout, ms (1 h). */
export const MAX_DRAIN_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * Validate a drain timeout in ms (0 = do not wait), default 30 s. Throws
 * {@link InvocationError} naming `--drain-timeout`.
 *
 * @example
 * ```ts
 * import { checkDrainTimeout } from "./http_drain.ts";
 * checkDrainTimeout(undefined); // 30000
 * ```
 */
export function checkDrainTimeout(ms: number | undefined): number {
  const v = ms ?? DEFAULT_DRAIN_TIMEOUT_MS;
  if (!Number.isInteger(v) || v < 0 || v > MAX_DRAIN_TIMEOUT_MS) {
    throw new InvocationError(
      "--drain-timeout takes a duration from 0s to 1h, e.g. --drain-timeout 30s.",
    );
  }
  return v;
}

/** How a drain ended. */
export interface DrainOutcome {
  /** Requests still open when the timeout cut the wait short (0: all finished). */
  abandoned: number;
}

/**
 * Resolve once `open()` is 0 (checked now and whenever `changed` fires) or `timeoutMs`
 * passed; reports how many were still open.
 *
 * @example
 * ```ts
 * import { untilQuiet } from "./http_drain.ts";
 * const outcome = await untilQuiet(() => 0, (_wake) => () => {}, 1000);
 * console.log(outcome.abandoned); // 0
 * ```
 */
export function untilQuiet(
  open: () => number,
  changed: (wake: () => void) => () => void,
  timeoutMs: number,
): Promise<DrainOutcome> {
  return new Promise((resolve) => {
    if (open() === 0) return resolve({ abandoned: 0 });
    const finish = () => {
      clearTimeout(timer);
      unsubscribe();
      resolve({ abandoned: open() });
    };
    const timer = setTimeout(finish, timeoutMs);
    const unsubscribe = changed(() => {
      if (open() === 0) finish();
    });
  });
}
