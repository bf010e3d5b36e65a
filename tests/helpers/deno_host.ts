/**
 * Run a test body with the Deno host's own calls set (`installDenoHost` of cli.ts: the
 * pins' stat and listing, the sandbox's object stat), then restore `node:fs` for all three,
 * so no later test in the process inherits them.
 */

import { installDenoHost } from "../../cli.ts";
import { useHostReadDir, useHostStat } from "../../lib/pins/host_fs.ts";
import { useHostObjectStat } from "../../lib/paths/host_object_stat.ts";

/** `fn`'s result (awaited when it is a promise) with the Deno host installed meanwhile. */
export async function withDenoHost<T>(fn: () => T | Promise<T>): Promise<T> {
  installDenoHost();
  try {
    return await fn();
  } finally {
    restoreNodeFs();
  }
}

/** The same, synchronously. */
export function withDenoHostSync<T>(fn: () => T): T {
  installDenoHost();
  try {
    return fn();
  } finally {
    restoreNodeFs();
  }
}

function restoreNodeFs(): void {
  useHostReadDir(undefined);
  useHostStat(undefined);
  useHostObjectStat(undefined);
}
