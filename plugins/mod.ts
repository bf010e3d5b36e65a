/**
 * The first-party plugins bundled with toolhost, enabled per workspace with
 * `[plugins] enable = [...]`. Each uses only the public plugin API (lib/plugins/mod.ts).
 *
 * @example
 * ```ts
 * import { FIRST_PARTY_PLUGINS } from "./mod.ts";
 * FIRST_PARTY_PLUGINS.map((p) => p.name); // ["audit-log", "policy", "protected-values"]
 * ```
 *
 * @module
 */

import type { Plugin } from "../lib/plugins/mod.ts";
import { auditLogPlugin } from "./audit-log/mod.ts";
import { policyPlugin } from "./policy/mod.ts";
import { protectedValuesPlugin } from "./protected-values/mod.ts";

export { auditLogPlugin, policyPlugin, protectedValuesPlugin };

/** Every first-party plugin, by stable order. */
export const FIRST_PARTY_PLUGINS: readonly Plugin[] = Object.freeze([
  auditLogPlugin,
  policyPlugin,
  protectedValuesPlugin,
]);
