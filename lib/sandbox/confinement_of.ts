/**
 * The `confinement` option of a declaration's runs: present only when its policy in
 * effect is a confined mode (`none`, `read`, `write`), so `host` runs exactly as before.
 *
 * @module
 */

import type { Confinement } from "./confine.ts";
import type { SandboxPolicy } from "./policy.ts";

/**
 * `{ confinement }` for a confined declaration, `{}` for a `host` one.
 *
 * @example
 * ```ts
 * import { confinementOf } from "./confinement_of.ts";
 * confinementOf({}, "/ws/.toolhost/state"); // {}
 * confinementOf({ sandbox: { mode: "read", network: false, read: [], write: [] } }, "/s");
 * // { confinement: { policy: {...}, stateDir: "/s", writable: [] } }
 * ```
 */
export function confinementOf(
  decl: { sandbox?: SandboxPolicy; limits?: { maxMemoryMb?: number } },
  stateDir: string,
  writable: string[] = [],
): { confinement?: Confinement } {
  const policy = decl.sandbox;
  if (policy === undefined || policy.mode === "host") return {};
  const mb = decl.limits?.maxMemoryMb;
  // The private /tmp and /dev/shm are memory: each holds at most the memory limit.
  const tmpfs = mb === undefined ? {} : { tmpfsBytes: mb * 1024 * 1024 };
  return { confinement: { policy, stateDir, writable, ...tmpfs } };
}
