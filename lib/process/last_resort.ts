/**
 * Last-resort synchronous cleanup when the process is going away: on Node's `exit` event;
 * on the web `unload` event where the global scope is an event target (Deno fires it on
 * every way out that runs JavaScript, including its own exit call, which skips `exit`); and —
 * on Deno, which skips both after an uncaught error or unhandled rejection — on those
 * global events too. Every registrant (process groups, tool sessions) shares this one
 * installation, so no kind of child is left running by an exit path another kind happens
 * to handle. Callbacks may run more than once (`process.exit()` fires `exit` and then
 * `unload` on Deno); they are idempotent.
 *
 * @module
 */

import process from "node:process";

const callbacks: (() => void)[] = [];
let installed = false;

type GlobalEvents = {
  addEventListener?: (type: string, listener: (e: Event) => void) => void;
};

function runAll(): void {
  for (const fn of callbacks) {
    try {
      fn();
    } catch { /* the others still run */ }
  }
}

/**
 * Run `fn` synchronously when the process exits (`exit`, or `unload` — Deno's own exit
 * call fires only that), or dies of an uncaught error under Deno (which skips both).
 * `fn` must be synchronous, quick and idempotent (it may run more than once).
 *
 * @example
 * ```ts
 * import { onLastResort } from "./last_resort.ts";
 * onLastResort(() => {
 *   // SIGKILL what is still running
 * });
 * ```
 */
export function onLastResort(fn: () => void): void {
  callbacks.push(fn);
  if (installed) return;
  installed = true;
  process.on("exit", runAll);
  const g = globalThis as unknown as GlobalEvents;
  // Node: `exit` covers every way out that runs JavaScript (signals end it without any).
  if (typeof g.addEventListener !== "function") return;
  // A web API, not the runtime global: Deno's own exit call fires `unload`, never `exit`.
  g.addEventListener("unload", runAll);
  if (typeof process.versions.deno === "string") {
    const onFatal = (e: Event) => {
      if (!e.defaultPrevented) runAll();
    };
    g.addEventListener("error", onFatal);
    g.addEventListener("unhandledrejection", onFatal);
  }
}
