/**
 * Waiting for a session's start-up within the caller's cancellation and deadline.
 *
 * @module
 */

/**
 * Wait for `startup`, or stop waiting on abort or deadline (`deadlineAt`, epoch ms).
 *
 * @example
 * ```ts
 * import { raceStartup } from "./race_startup.ts";
 * await raceStartup(Promise.resolve(), undefined, Date.now() + 1000); // "done"
 * ```
 */
export async function raceStartup(
  startup: Promise<void>,
  signal: AbortSignal | undefined,
  deadlineAt: number,
): Promise<"done" | "cancelled" | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stops = new Promise<"cancelled" | "timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), Math.max(0, deadlineAt - Date.now()));
    onAbort = () => resolve("cancelled");
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) resolve("cancelled");
  });
  try {
    return await Promise.race([startup.then(() => "done" as const), stops]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}
