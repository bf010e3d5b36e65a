/**
 * `protected-values`: tools accept `protectedBindings` (`{"ENV_NAME": "protected://ref"}`).
 * In `beforeCall` the plugin resolves each reference from the configured provider and
 * contributes the value to the environment of the process that call starts — never to
 * its arguments. A reference it cannot resolve denies the call. Every value the provider
 * holds is registered for redaction, so it is replaced by `[protected]` wherever it would
 * reach the model: results, errors and log lines.
 *
 * `shell_exec` declares `protectedBindings` in its schema; a command tool that wants them
 * declares a `protectedBindings` object property in its `input_schema`.
 *
 * @module
 */

import { definePlugin, type Plugin } from "../../lib/plugins/mod.ts";
import { resolveBindings } from "./bindings.ts";
import { loadValues, readProviderConfig } from "./provider.ts";

/**
 * The `protected-values` plugin.
 *
 * @example
 * ```ts
 * import { protectedValuesPlugin } from "./mod.ts";
 * protectedValuesPlugin.name; // "protected-values"
 * ```
 */
export const protectedValuesPlugin: Plugin = definePlugin({
  name: "protected-values",
  description: "Resolve protected:// references into one process's environment; redact values.",
  validateConfig(config, report, ctx) {
    readProviderConfig(config, report, ctx);
  },
  setup(api) {
    const cfg = readProviderConfig(api.config, () => {}, { root: api.workspaceRoot });
    if (cfg === null) throw new Error("the protected-values configuration is invalid");
    const values = loadValues(cfg, api.env);
    for (const v of values.values()) api.redact(v);
    // The provider's variables reach a process only through a call's grant, never by
    // inheritance from the registry's environment.
    if (cfg.provider === "env") {
      for (const name of Object.values(cfg.env)) api.withholdEnv(name);
    }
    api.beforeCall((call) => {
      if (call.args.protectedBindings === undefined) return;
      const r = resolveBindings(call.args.protectedBindings, values);
      return r.ok ? { decision: "allow", env: r.env } : { decision: "deny", reason: r.reason };
    });
  },
});
