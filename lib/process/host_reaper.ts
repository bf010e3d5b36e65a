/**
 * The host's child-subreaper hook, set by an entry that made this process a child
 * subreaper (`cli.ts`, with Deno FFI: lib/ never names the `Deno` global, and Node has no
 * `prctl`). Imports nothing, so the CLI sets it before any `node:*` module is loaded.
 * lib/process/adopted.ts reads it; unset (the npm build, a library user of `mod.ts`),
 * orphans of tools go to init as before.
 *
 * @module
 */

/** What the host hands in once it made this process a child subreaper. */
export interface HostSubreaper {
  /** `waitpid(pid, NULL, WNOHANG)`: reap one exited child; true when it was reaped. */
  reap(pid: number): boolean;
}

let host: HostSubreaper | undefined;

/**
 * Called by the host after `prctl(PR_SET_CHILD_SUBREAPER, 1)` succeeded: orphans of tools
 * are this process's children from now on (lib/process/adopted.ts).
 *
 * @example
 * ```ts
 * import { hostSubreaper, useHostSubreaper } from "./host_reaper.ts";
 * const before = hostSubreaper();
 * useHostSubreaper({ reap: () => false });
 * hostSubreaper() !== undefined; // true
 * if (before === undefined) useHostSubreaper(undefined);
 * ```
 */
export function useHostSubreaper(h: HostSubreaper | undefined): void {
  host = h;
}

/**
 * The hook the host set, if any.
 *
 * @example
 * ```ts
 * import { hostSubreaper } from "./host_reaper.ts";
 * hostSubreaper(); // undefined unless the CLI made this process a subreaper
 * ```
 */
export function hostSubreaper(): HostSubreaper | undefined {
  return host;
}
