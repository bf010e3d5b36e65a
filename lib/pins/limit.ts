/**
 * Bounded-concurrency mapping over an array, and yielding between bursts of sync work.
 *
 * @module
 */

import { setImmediate } from "node:timers";

/** The outcome of one mapped item. */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Map `items` through `fn` with at most `limit` calls in flight. After the first failure no
 * new call starts; calls in flight are awaited, then the first error (by input order among
 * the failures seen) is thrown.
 *
 * @example
 * ```ts
 * import { mapLimit } from "./limit.ts";
 * const out = await mapLimit(["a", "b"], 4, (s) => Promise.resolve(s.toUpperCase()));
 * console.log(out); // ["A", "B"]
 * ```
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  const errors: { index: number; error: unknown }[] = [];
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length && errors.length === 0) {
      const i = next++;
      try {
        out[i] = await fn(items[i], i);
      } catch (error) {
        errors.push({ index: i, error });
      }
    }
  }
  const n = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: n }, worker));
  if (errors.length > 0) {
    errors.sort((a, b) => a.index - b.index);
    throw errors[0].error;
  }
  return out;
}

/**
 * Let other tasks run (timers, I/O callbacks) between bursts of synchronous work.
 *
 * @example
 * ```ts
 * import { yieldToEventLoop } from "./limit.ts";
 * await yieldToEventLoop();
 * ```
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
