/**
 * When an extension server that died may be started again: restarts are lazy (the next
 * call that needs the server), spaced by an exponential backoff, and capped per rolling
 * minute. Beyond the cap the call gets an error that says when a restart is allowed
 * again.
 *
 * @module
 */

/** Options of {@link RestartPolicy}. */
export interface RestartOptions {
  /** Most restarts within `windowMs`. Default 5. */
  maxRestarts?: number;
  /** The rolling window, ms. Default 60000 (one minute). */
  windowMs?: number;
  /** Wait before the second restart in the window, ms; doubles for each further one. Default 250. */
  backoffMs?: number;
  /** Longest wait, ms. Default 8000. */
  maxBackoffMs?: number;
}

/** The decision for the next restart. */
export type RestartDecision =
  | { ok: true; waitMs: number }
  | { ok: false; retryAfterMs: number; max: number };

/**
 * Restart bookkeeping of one extension.
 *
 * @example
 * ```ts
 * import { RestartPolicy } from "./restart_policy.ts";
 * const p = new RestartPolicy({ maxRestarts: 2 });
 * p.next(0); // { ok: true, waitMs: 0 }
 * p.record(0);
 * p.next(0); // { ok: true, waitMs: 250 }
 * ```
 */
export class RestartPolicy {
  readonly #max: number;
  readonly #window: number;
  readonly #base: number;
  readonly #cap: number;
  #times: number[] = [];

  /** Create a policy with no restarts recorded. */
  constructor(opts: RestartOptions = {}) {
    this.#max = opts.maxRestarts ?? 5;
    this.#window = opts.windowMs ?? 60_000;
    this.#base = opts.backoffMs ?? 250;
    this.#cap = opts.maxBackoffMs ?? 8_000;
  }

  #recent(now: number): number[] {
    this.#times = this.#times.filter((t) => now - t < this.#window);
    return this.#times;
  }

  /** Restarts within the window ending at `now`. */
  count(now: number = Date.now()): number {
    return this.#recent(now).length;
  }

  /** May the server be restarted at `now`, and after how long a wait? */
  next(now: number = Date.now()): RestartDecision {
    const recent = this.#recent(now);
    if (recent.length >= this.#max) {
      return { ok: false, retryAfterMs: recent[0] + this.#window - now, max: this.#max };
    }
    if (recent.length === 0) return { ok: true, waitMs: 0 };
    const delay = Math.min(this.#base * 2 ** (recent.length - 1), this.#cap);
    return { ok: true, waitMs: Math.max(0, recent[recent.length - 1] + delay - now) };
  }

  /** Record a restart at `now`. */
  record(now: number = Date.now()): void {
    this.#times.push(now);
  }
}
