/**
 * Which plugins a workspace can name: the first-party plugins bundled with toolhost
 * (plugins/) and any library plugins a caller passes in.
 *
 * @module
 */

import { FIRST_PARTY_PLUGINS } from "../../plugins/mod.ts";
import type { Plugin } from "./api.ts";

/** A known plugin. */
export interface KnownPlugin {
  /** The plugin. */
  plugin: Plugin;
  /** Bundled with toolhost (enabled by `[plugins] enable`), else passed by a library user. */
  firstParty: boolean;
}

/**
 * The first-party plugins, in a stable order.
 *
 * @example
 * ```ts
 * import { firstPartyPlugins } from "./catalog.ts";
 * firstPartyPlugins().map((p) => p.name); // ["audit-log", "policy", "protected-values"]
 * ```
 */
export function firstPartyPlugins(): readonly Plugin[] {
  return FIRST_PARTY_PLUGINS;
}

/**
 * Every plugin a manifest may name, by name. A library plugin with a first-party name
 * replaces nothing: the first-party one wins and the library one is ignored.
 *
 * @example
 * ```ts
 * import { knownPlugins } from "./catalog.ts";
 * knownPlugins().has("policy"); // true
 * ```
 */
export function knownPlugins(library: readonly Plugin[] = []): Map<string, KnownPlugin> {
  const out = new Map<string, KnownPlugin>();
  for (const plugin of FIRST_PARTY_PLUGINS) out.set(plugin.name, { plugin, firstParty: true });
  for (const plugin of library) {
    if (!out.has(plugin.name)) out.set(plugin.name, { plugin, firstParty: false });
  }
  return out;
}
