/**
 * Whether an extension may start under a lock: the refusal text (and its event) when its
 * declaration, program or execution paths differ from `toolhost.lock`. Without a lock,
 * start_pins.ts decides instead.
 *
 * @module
 */

import { reportCallEvent } from "../events/call_events.ts";
import { describeDrift } from "../lock/compare.ts";
import type { ExtensionLockCheck } from "../lock/extension_lock.ts";
import type { ExtensionDecl } from "../workspace/parse_extensions.ts";

/**
 * The `LOCK_MISMATCH` text that keeps `decl` from starting, or undefined when it matches
 * the lock.
 *
 * @example
 * ```ts
 * import { startRefusal } from "./start_refusal.ts";
 * // const refusal = await startRefusal(lockCheck, decl); // undefined: start it
 * ```
 */
export async function startRefusal(
  lock: ExtensionLockCheck,
  decl: ExtensionDecl,
): Promise<string | undefined> {
  const held = await lock.serverDrift(decl);
  if (held.length === 0) return undefined;
  reportCallEvent({ kind: "lock_mismatch", what: "extension" });
  return `LOCK_MISMATCH: the extension \`${decl.name}\` was not started because it differs ` +
    `from toolhost.lock (${held.map(describeDrift).join("; ")}). Review the change, then run ` +
    "`toolhost lock` to accept it.";
}
