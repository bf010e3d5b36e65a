/**
 * `policy`: allow/deny rules by published tool-name glob and by argument matchers (JSON
 * pointer + RE2 pattern), evaluated in `beforeCall` for every call at the executor
 * boundary — after argument admission, for calls inside tool sessions too, and again for
 * every repeated call (decisions are never cached). The first matching rule decides;
 * otherwise `default`. See rules.ts for the configuration.
 *
 * CLI: `toolhost policy check TOOL [--args JSON]` shows the decision for a call.
 *
 * @module
 */

import { definePlugin, type Plugin } from "../../lib/plugins/mod.ts";
import { evaluatePolicy } from "./evaluate.ts";
import { compilePolicy } from "./rules.ts";
import { policyCliCommand } from "./cli.ts";

/**
 * The `policy` plugin.
 *
 * @example
 * ```ts
 * import { policyPlugin } from "./mod.ts";
 * policyPlugin.name; // "policy"
 * ```
 */
export const policyPlugin: Plugin = definePlugin({
  name: "policy",
  description: "Allow or deny calls by tool-name glob and argument patterns (RE2).",
  validateConfig(config, report) {
    compilePolicy(config, report);
  },
  setup(api) {
    const policy = compilePolicy(api.config, () => {});
    if (policy === null) throw new Error("the policy configuration is invalid");
    api.beforeCall((call) => {
      const d = evaluatePolicy(policy, call.tool, call.args);
      return d.effect === "allow"
        ? { decision: "allow" }
        : { decision: "deny", reason: d.reason ?? "denied by policy" };
    });
  },
  cliCommands: (ctx) => [policyCliCommand(ctx)],
});
